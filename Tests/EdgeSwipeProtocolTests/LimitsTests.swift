import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import Foundation
import Testing

/// The largest `hello` the limits allow still fits in what clients are told to accept.
@Suite("Hello size at the limits")
struct HelloLimitsTests {
    /// A name of `bytes` bytes that JSON must escape throughout: the worst case for the encoded size.
    static func escaped(_ bytes: Int, _ tag: Int) -> String {
        let prefix = "\(tag)"
        return prefix + String(repeating: "\"", count: bytes - prefix.utf8.count)
    }

    @Test("a state at StateLimits.maxStateBytes, 64 containers, 256 bindings and 16 devices: the hello is under 1 MiB")
    func largestHello() throws {
        // 64 containers with 256-byte names; every stack filled with 256-byte names until the state is full.
        var containers = (0..<StateLimits.maxContainers).map {
            Container(name: Self.escaped(StateLimits.maxNameBytes, $0), content: .navigation(stack: [Self.escaped(StateLimits.maxNameBytes, 0)]))
        }
        var i = 0
        while true {
            let c = i % containers.count
            guard case .navigation(var stack) = containers[c].content else { break }
            stack.append(Self.escaped(StateLimits.maxNameBytes, stack.count))
            var grown = containers
            grown[c].content = .navigation(stack: stack)
            guard StateLimits.size(of: grown) <= StateLimits.maxStateBytes, stack.count <= StateLimits.maxStackDepth else { break }
            containers = grown
            i += 1
        }
        #expect(StateLimits.size(of: containers) > StateLimits.maxStateBytes - 300)
        let bindings = (0..<StateLimits.maxBindings).map {
            Binding(edge: .left, container: containers[$0 % containers.count].name, operation: .pop)
        }
        let configuration = EngineConfiguration(containers: containers, bindings: bindings)
        let devices = (0..<16).map {
            TouchDevice(
                id: DeviceID(UInt32($0)), name: Self.escaped(StateLimits.maxNameBytes, $0), kind: .touchscreen,
                x: AxisRange(minimum: 0, maximum: 4095, resolution: 20), y: AxisRange(minimum: 0, maximum: 4095, resolution: 20),
                path: "/dev/input/by-path/" + String(repeating: "p", count: 1000))
        }
        let snapshot = ServerSnapshot(
            serverVersion: "edgeswiped 0.1.0", devices: devices,
            config: ConfigSummary(configuration: configuration, source: "/etc/edgeswipe/" + String(repeating: "c", count: 4000)),
            containers: containers, running: [], time: .zero)
        var encoder = ProtocolLineEncoder()
        var out: [UInt8] = []
        encoder.encodeHello(snapshot, time: MonotonicInstant(microseconds: UInt64.max / 2), into: &out)
        #expect(out.count <= WireProtocol.maxHelloBytes, "the hello is \(out.count) bytes")
        #expect((try? JSONSerialization.jsonObject(with: Data(out.dropLast()))) != nil, "and is JSON")
    }

    @Test("a device's name is cut to 256 bytes at a character boundary")
    func deviceNames() {
        let long = String(repeating: "é", count: 200)
        let device = TouchDevice(id: DeviceID(1), name: long, kind: .touchpad, x: AxisRange(minimum: 0, maximum: 1), y: AxisRange(minimum: 0, maximum: 1))
        #expect(device.name == String(repeating: "é", count: 128))
    }
}
