public import EdgeSwipeCore
public import EdgeSwipeProtocol

// Requests as the engine takes them: a control request's operation, resolved against the containers, and an
// engine refusal as the `error` a client is sent.

extension ControlRequest {
    /// The engine operation. A tab chosen by scene is looked up in the container's tabs, which is why the
    /// current containers are needed.
    public func operation(in containers: [Container]) throws(RequestError) -> TransitionOperation {
        switch action {
        case .push(let scene): return .push(scene: scene)
        case .pop: return .pop
        case .popToRoot: return .popToRoot
        case .present(let scene, let style, let frame): return .present(scene: scene, style: style, frame: frame)
        case .dismiss: return .dismiss
        case .show(let child): return .show(child: child)
        case .selectTab(.index(let index)): return .selectTab(index: index)
        case .selectTab(.scene(let scene)):
            guard let c = containers.first(where: { $0.name == container }) else {
                throw RequestError(TransitionRefusal.unknownContainer(container))
            }
            guard case .tabs(let tabs, _) = c.content else {
                throw RequestError(TransitionRefusal.wrongContainerKind(container: container, kind: c.content.kind, operation: op))
            }
            guard let index = tabs.firstIndex(of: scene) else {
                throw RequestError(TransitionRefusal.unknownScene(container: container, scene: scene))
            }
            return .selectTab(index: index)
        }
    }
}

extension RequestError {
    /// An engine refusal (`busy`, `unknown-container`, ...), with the engine's own code and wording.
    public init(_ refusal: TransitionRefusal) {
        self.init(code: ErrorCode(refusal.code), reason: refusal.description)
    }
}
