import EdgeSwipeSystem
import EdgeSwipeVocabulary
import EdgeSwipeTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import EdgeSwipeBus
@testable import EdgeSwipeSession

/// The session's bus thread on a real private dbus-daemon: serving calls behind a caller check, calls answered and
/// not, signals, and stopping.
@Suite("The session's bus thread", .serialized, .enabled(if: MockSeatBus.isAvailable, "dbus-daemon or python3-dbusmock is missing"))
struct BusLoopTests {
    @Test("signatures split into complete types", arguments: [
        ("tsi", ["t", "s", "i"]), ("as", ["as"]), ("a{sv}(ss)u", ["a{sv}", "(ss)", "u"]), ("aa(t(sb))", ["aa(t(sb))"]),
        ("", []), ("(", nil), ("()", nil), ("a", nil), ("{ss}", ["{ss}"]), ("a{s}", nil), ("z", nil),
    ] as [(String, [String]?)])
    func signatures(_ text: String, _ expected: [String]?) {
        #expect(BusSignature.split(text) == expected)
    }

    @Test("a served interface answers callers the check lets through, refuses the others with the reason, and takes no-reply calls")
    func serve() throws {
        let mock = try MockSeatBus(["shell"])
        let address = mock.address
        let log = LogCapture()
        let loop = try BusLoop(logger: log.logger) { () throws(BusError) in try SDBus.connect(address: address) }
        defer { loop.stop() }
        let activated = NIOLockedValueBox<[String]>([])
        let allowed = NIOLockedValueBox<String?>(nil)
        let served = NIOLockedValueBox<String?>(nil)
        loop.onConnected { context in
            let allowedNow = allowed
            do {
                try context.serve("/org/edgeswipe/Test", interface: "org.edgeswipe.Test1",
                    check: { call in allowedNow.withLockedValue { $0 } == call.sender ? nil : "\(call.sender) is not the focus script" },
                    methods: [
                        "Activated": { call in
                            activated.withLockedValue { $0.append(call.arguments.map(\.description).joined(separator: " ")) }
                            return .done
                        },
                        "Echo": { call in .values(call.arguments, signature: "as") },
                    ])
                served.withLockedValue { $0 = context.bus?.uniqueName }
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(waitUntil(timeout: 10) { served.withLockedValue { $0 } != nil })
        let name = try #require(served.withLockedValue { $0 })
        let caller = try SDBus.connect(address: address)
        func method(_ member: String) -> BusMethod { BusMethod(destination: name, path: "/org/edgeswipe/Test", interface: "org.edgeswipe.Test1", member: member) }
        // Not allowed yet: refused with the reason.
        let refusal = Self.failure { () throws(BusError) in
            _ = try caller.call(method("Activated"), values: [.string("a"), .string("b")], timeout: Microseconds(5_000_000))
        }
        #expect(refusal?.remoteName == "org.freedesktop.DBus.Error.AccessDenied")
        #expect(refusal.map { "\($0)" }?.contains("is not the focus script") == true, "\(String(describing: refusal))")
        allowed.withLockedValue { $0 = caller.uniqueName }
        _ = try caller.call(method("Activated"), values: [.string("org.kde.konsole"), .string("konsole")], timeout: Microseconds(5_000_000))
        let echo = try caller.call(method("Echo"), values: [.array([.string("x"), .string("y")])], signature: "as", timeout: Microseconds(5_000_000))
        #expect(echo.body == [.array([.string("x"), .string("y")])])
        try caller.send(method("Activated"), values: [.string("no"), .string("reply")])
        caller.flush()
        #expect(waitUntil(timeout: 10) { activated.withLockedValue { $0 } == ["\"org.kde.konsole\" \"konsole\"", "\"no\" \"reply\""] },
                "\(activated.withLockedValue { $0 })")
        let unknown = Self.failure { () throws(BusError) in _ = try caller.call(method("Nothing"), values: [], timeout: Microseconds(5_000_000)) }
        #expect(unknown?.remoteName == "org.freedesktop.DBus.Error.UnknownMethod", "\(String(describing: unknown))")
    }

    /// The error `body` throws, if it does.
    static func failure(_ body: () throws(BusError) -> Void) -> BusError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("a call answered late does not hold the thread: later jobs and calls run meanwhile; stop() ends the thread")
    func nonBlocking() throws {
        let mock = try MockSeatBus(["shell"])
        try mock.send("freeze shell")
        let address = mock.address
        let log = LogCapture()
        let loop = try BusLoop(logger: log.logger) { () throws(BusError) in try SDBus.connect(address: address) }
        let order = NIOLockedValueBox<[String]>([])
        loop.enqueue { context in
            context.callAsync(
                BusMethod.getProperty("org.gnome.Shell", "/org/gnome/Shell"), values: [.string("org.gnome.Shell"), .string("OverviewActive")],
                timeout: Microseconds(60_000_000)
            ) { result in order.withLockedValue { $0.append("answered \((try? result.get())?.body.description ?? "error")") } }
        }
        loop.enqueue { _ in order.withLockedValue { $0.append("next job") } }
        #expect(waitUntil(timeout: 10) { order.withLockedValue { $0 } == ["next job"] })
        try mock.send("thaw shell")
        #expect(waitUntil(timeout: 10) { order.withLockedValue { $0 }.count == 2 }, "\(order.withLockedValue { $0 })")
        #expect(order.withLockedValue { $0 }.last == "answered [<false>]" || order.withLockedValue { $0 }.last?.hasPrefix("answered [") == true)
        loop.stop()
        loop.enqueue { _ in order.withLockedValue { $0.append("after stop") } }
        loop.stop()
        #expect(!order.withLockedValue { $0 }.contains("after stop"))
    }
}
