import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import EdgeSwipeServer
import Synchronization

/// Answers the requests the server cannot answer alone, on the input thread that owns the engine. The server is
/// started before the input thread exists (it must publish from the first event), so the thread is filled in
/// once it does.
final class RequestRouter: EdgeSwipeRequestHandler {
    let input = Mutex<InputThread?>(nil)

    func handle(_ request: DaemonRequest, context: RequestContext) async throws(RequestError) -> ReplyResult {
        guard let input = input.withLock({ $0 }), !input.hasFinished else {
            throw RequestError(code: .unavailable, reason: "the daemon is shutting down")
        }
        switch request {
        case .status:
            return .status(context.snapshot)
        case .devices:
            return .devices(context.snapshot.devices)
        case .control(let control):
            let operation = try control.operation(in: context.snapshot.containers)
            let result = await withCheckedContinuation { continuation in
                input.send(.request(operation, container: control.container, animated: control.animated) { continuation.resume(returning: $0) })
            }
            switch result {
            case .success(let id): return .transition(id)
            case .failure(let refusal): throw RequestError(refusal)
            }
        case .setRotation(let rotation):
            let result = await withCheckedContinuation { continuation in
                input.send(.setRotation(rotation) { continuation.resume(returning: $0) })
            }
            switch result {
            case .success(let outcome): return .rotation(applied: outcome.applied, pending: outcome.pending)
            case .failure(let refusal): throw RequestError(code: refusal.code, rotationRefusal: refusal.description)
            }
        }
    }
}
