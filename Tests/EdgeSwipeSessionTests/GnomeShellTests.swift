import EdgeSwipeBus
import EdgeSwipeClient
@testable import EdgeSwipeProtocol
import EdgeSwipeSessionModel
import EdgeSwipeTestSupport
import Foundation
import NIOPosix
import Testing

@testable import EdgeSwipeSession

/// The session's GNOME backend against a stand-in of EdgeSwipe's extension on a real private dbus-daemon
/// (`scripts/seat-bus-mock.py shell`, then `extension`: python3-dbusmock serving org.edgeswipe.Shell1 on the name
/// org.gnome.Shell and recording each call). The real shell is GnomeShellExtensionTests'.
@Suite("GNOME: live rules, keys and focus through the extension's D-Bus API", .serialized,
       .enabled(if: MockSeatBus.isAvailable, "dbus-daemon or python3-dbusmock is missing"))
struct GnomeShellTests {
    static let rules = """
        [[rule]]
        name = "next"
        swipe = "left"
        fingers = 3
        workspace = "next"
        [[rule]]
        name = "ff back"
        edge = "left"
        app = "firefox"
        key = "ctrl+bracketleft"
        [[rule]]
        name = "back"
        edge = "left"
        key = "alt+Left"

        """

    final class Rig {
        let mock: MockSeatBus
        let log = LogCapture()
        let session: Session

        init(extensionFirst: Bool = true, rules: String = GnomeShellTests.rules) throws {
            mock = try MockSeatBus(["shell"])
            if extensionFirst { #expect(try mock.send("extension") == "ok") }
            let address = mock.address
            let bus = try DesktopBus(logger: log.logger) { () throws(BusError) in try SDBus.connect(address: address) }
            session = Session(
                rules: try SessionRulesParser.parse(rules, file: "s.toml").withBuiltIn(for: .gnome), desktop: .gnome, environment: [:],
                eventLoop: MultiThreadedEventLoopGroup.singleton.next(), compositor: nil, keys: nil, desktopBus: .success(bus),
                logger: log.logger)
        }

        deinit { session.stop() }

        func feed(_ messages: [ServerMessage]) {
            session.eventLoop.execute { [session] in
                for m in messages { session.handle(.message(m, line: [])) }
            }
        }

        func calls() -> String { (try? mock.send("ext-calls")) ?? "" }

        func focus() -> String? { try? session.eventLoop.submit { [session] in session.focusedApp }.wait() }
    }

    static func hello() -> ServerMessage {
        var h = HelloMessage()
        var pad = DeviceInfo()
        pad.id = 2
        pad.kind = .touchpad
        var screen = DeviceInfo()
        screen.id = 1
        screen.kind = .touchscreen
        h.devices = [screen, pad]
        return .hello(h)
    }

    static func t(
        _ id: UInt64, _ phase: TransitionPhase, _ percent: Double = 0, edge: Edge? = nil, swipe: SwipeDirection = .left, runOutUS: Int64 = 250_000
    ) -> ServerMessage {
        var m = TransitionMessage()
        m.id = id
        m.phase = phase
        m.percent = percent
        m.container = "desktop"
        m.operation = "workspace"
        if let edge {
            m.edge = edge
            m.device = 1
        } else {
            m.swipeDirection = swipe
            m.swipeFingers = 3
            m.device = 2
        }
        m.progress = phase == .changed
        if phase == .finishing || phase == .cancelling {
            var a = AnimationInfo()
            a.durationUS = runOutUS
            m.animation = a
        }
        return .transition(m)
    }

    static func swipe(_ id: UInt64, end: TransitionPhase = .completed) -> [ServerMessage] {
        [t(id, .began), t(id, .changed, 0.25), t(id, .changed, 0.6), t(id, end == .completed ? .finishing : .cancelling, 0.6), t(id, end, end == .completed ? 1 : 0)]
    }

    static func calls(after marker: String, in all: String) -> String {
        guard let r = all.range(of: marker) else { return "" }
        return String(all[r.lowerBound...])
    }

    @Test("a live workspace rule registers, claims the touchpad's horizontal swipe, drives the gesture and its run-out, and does not fire again")
    func live() throws {
        let rig = try Rig()
        #expect(waitUntil(timeout: 20) { rig.log.contains("registered with EdgeSwipe's extension") }, "\(rig.log.all)")
        rig.feed([Self.hello()] + Self.swipe(1) + Self.swipe(2, end: .cancelled))
        #expect(waitUntil(timeout: 20) { rig.calls().contains("EndGesture 2") }, "\(rig.calls()) \(rig.log.all)")
        #expect(rig.calls() == "ok Register 1;ClaimGestures [touchpad-horizontal touchscreen-horizontal];"
            + "BeginGesture 1,workspace-next,-1;UpdateGesture 1,0.250;UpdateGesture 1,0.600;EndGesture 1,true,250;"
            + "BeginGesture 2,workspace-next,-1;UpdateGesture 2,0.250;UpdateGesture 2,0.600;EndGesture 2,false,250")
        #expect(!rig.log.contains("needs EdgeSwipe's GNOME Shell extension"), "\(rig.log.all)")
        #expect(rig.log.contains("rule 'next' (s.toml:1): 3-finger swipe left began -> workspace next, live"), "\(rig.log.all)")
    }

    @Test("a refused begin (a modal dialog) ends the rule's ownership with one line: nothing more is sent for it")
    func modal() throws {
        let rig = try Rig()
        #expect(waitUntil(timeout: 20) { rig.log.contains("registered with EdgeSwipe's extension") }, "\(rig.log.all)")
        #expect(try rig.mock.send("ext-modal true") == "ok")
        rig.feed([Self.hello(), Self.t(1, .began)])
        #expect(waitUntil(timeout: 20) { rig.log.contains("the rule lets it go") }, "\(rig.log.all)")
        rig.feed([Self.t(1, .changed, 0.5), Self.t(1, .finishing, 0.5), Self.t(1, .completed, 1), Self.t(2, .began)])
        #expect(waitUntil(timeout: 20) { rig.log.all.filter { $0.contains("the rule lets it go") }.count == 2 }, "\(rig.log.all)")
        rig.feed([Self.t(2, .changed, 0.5), Self.t(2, .cancelling, 0.5), Self.t(2, .cancelled)])
        // The dialog closed: the next swipe is live again; its calls come after anything sent for 1 and 2.
        #expect(try rig.mock.send("ext-modal false") == "ok")
        rig.feed(Self.swipe(3))
        #expect(waitUntil(timeout: 20) { rig.calls().contains("EndGesture 3,true,250") }, "\(rig.calls())")
        let calls = rig.calls()
        #expect(!calls.contains("UpdateGesture 1,") && !calls.contains("EndGesture 1") && !calls.contains("UpdateGesture 2,") && !calls.contains("EndGesture 2"), "\(calls)")
        #expect(rig.log.all.filter { $0.contains("NotAllowedNow") }.count == 2, "\(rig.log.all)")
    }

    @Test("the focused app follows GNOME's (forged signals are ignored), app rules and keys go through the extension")
    func focusAndKeys() throws {
        let rig = try Rig()
        #expect(waitUntil(timeout: 20) { rig.log.contains("registered with EdgeSwipe's extension") }, "\(rig.log.all)")
        #expect(try rig.mock.send("ext-forge-focus evil") == "ok")
        #expect(try rig.mock.send("ext-focus firefox -") == "ok")
        #expect(waitUntil(timeout: 20) { rig.focus() == "firefox" }, "\(rig.log.all)")
        rig.feed([Self.hello(), Self.t(1, .began, edge: .left), Self.t(1, .completed, 1, edge: .left)])
        #expect(waitUntil(timeout: 20) { rig.calls().contains("SendChord [ctrl],91") }, "\(rig.calls())")
        #expect(try rig.mock.send("ext-focus - org.gnome.Nautilus") == "ok")
        #expect(waitUntil(timeout: 20) { rig.focus() == "org.gnome.Nautilus" }, "\(rig.log.all)")
        rig.feed([Self.t(2, .began, edge: .left), Self.t(2, .completed, 1, edge: .left)])
        #expect(waitUntil(timeout: 20) { rig.calls().contains("SendChord [alt],65361") }, "\(rig.calls())")
        #expect(!rig.log.contains("focus: evil"), "\(rig.log.all)")
        #expect(rig.log.contains("FocusedAppChanged signal from"), "\(rig.log.all)")
    }

    @Test("an overview toggle asks GNOME whether the overview is shown, then begins; what came meanwhile follows in order")
    func toggle() throws {
        let rig = try Rig(rules: "[[rule]]\nname = \"o\"\nswipe = \"up\"\nfingers = 3\ngnome_overview = \"toggle\"\n")
        #expect(waitUntil(timeout: 20) { rig.log.contains("registered with EdgeSwipe's extension") }, "\(rig.log.all)")
        rig.feed([Self.hello(), Self.t(1, .began, swipe: .up), Self.t(1, .changed, 0.3, swipe: .up), Self.t(1, .changed, 0.6, swipe: .up),
                  Self.t(1, .finishing, 0.6, swipe: .up), Self.t(1, .completed, 1, swipe: .up)])
        #expect(waitUntil(timeout: 20) { rig.calls().contains("EndGesture 1") }, "\(rig.calls())")
        // The updates that came while GNOME was asked wait (the latest kept) and go after the begin, then the decision.
        let calls = rig.calls().dropFirst(3).split(separator: ";").map(String.init)
        #expect(Array(calls.prefix(3)) == ["Register 1", "ClaimGestures [touchpad-vertical touchscreen-vertical]", "BeginGesture 1,overview-show,-1"], "\(calls)")
        #expect(calls.last == "EndGesture 1,true,250", "\(calls)")
        #expect(calls.dropLast().last == "UpdateGesture 1,0.600", "\(calls)")
    }

    @Test("the extension disabled after registering: the first begin finds it gone, says once how to enable it, then rules fall back; enabled again, live again")
    func disabledLater() throws {
        let rig = try Rig()
        #expect(waitUntil(timeout: 20) { rig.log.contains("registered with EdgeSwipe's extension") }, "\(rig.log.all)")
        #expect(try rig.mock.send("ext-disable") == "ok")
        rig.feed([Self.hello()] + Self.swipe(1))
        #expect(waitUntil(timeout: 20) { rig.log.contains("gnome-extensions enable edgeswipe@edgeswipe.invalid") }, "\(rig.log.all)")
        rig.feed(Self.swipe(2) + Self.swipe(3))
        #expect(waitUntil(timeout: 20) { rig.log.contains("workspace rules on GNOME need EdgeSwipe's GNOME Shell extension") }, "\(rig.log.all)")
        #expect(rig.log.all.filter { $0.contains("is not enabled") }.count == 1, "\(rig.log.all)")
        #expect(try rig.mock.send("extension") == "ok")
        #expect(waitUntil(timeout: 20) { rig.log.all.filter { $0.contains("registered with EdgeSwipe's extension") }.count == 2 }, "\(rig.log.all)")
        rig.feed(Self.swipe(4))
        #expect(waitUntil(timeout: 20) { rig.calls().contains("EndGesture 4,true,250") }, "\(rig.calls())")
    }

    @Test("Ready again (after the lock screen): the session registers again and claims its gestures again")
    func readyAgain() throws {
        let rig = try Rig()
        #expect(waitUntil(timeout: 20) { rig.calls().contains("ClaimGestures") }, "\(rig.log.all)")
        #expect(try rig.mock.send("ext-ready") == "ok")
        #expect(waitUntil(timeout: 20) { rig.calls().components(separatedBy: "ClaimGestures [touchpad-horizontal touchscreen-horizontal]").count == 3 },
                "\(rig.calls())")
        #expect(rig.calls().components(separatedBy: "Register 1").count == 3, "\(rig.calls())")
    }

    @Test("the daemon lost mid-gesture: GNOME's gesture goes back")
    func daemonLost() throws {
        let rig = try Rig()
        #expect(waitUntil(timeout: 20) { rig.log.contains("registered with EdgeSwipe's extension") }, "\(rig.log.all)")
        rig.feed([Self.hello(), Self.t(7, .began), Self.t(7, .changed, 0.4)])
        rig.session.eventLoop.execute { [session = rig.session] in session.handle(.disconnected) }
        #expect(waitUntil(timeout: 20) { rig.calls().contains("EndGesture 7,false,\(GnomeShell.goBackMS)") }, "\(rig.calls())")
    }

    @Test("without the extension: said once how to enable it, workspace and key rules refuse once; enabling it (Ready) registers")
    func notEnabled() throws {
        let rig = try Rig(extensionFirst: false)
        #expect(waitUntil(timeout: 20) { rig.log.contains("gnome-extensions enable edgeswipe@edgeswipe.invalid") }, "\(rig.log.all)")
        rig.feed([Self.hello()] + Self.swipe(1) + Self.swipe(2) + [Self.t(3, .began, edge: .left), Self.t(3, .completed, 1, edge: .left)])
        #expect(waitUntil(timeout: 20) { rig.log.contains("rule 'back' (s.toml:11): keys on GNOME need") }, "\(rig.log.all)")
        #expect(rig.log.all.filter { $0.contains("workspace rules on GNOME need EdgeSwipe's GNOME Shell extension") }.count == 1, "\(rig.log.all)")
        #expect(rig.log.all.filter { $0.contains("is not enabled") }.count == 1, "\(rig.log.all)")
        #expect(try rig.mock.send("extension") == "ok")
        #expect(waitUntil(timeout: 20) { rig.log.contains("registered with EdgeSwipe's extension") }, "\(rig.log.all)")
        rig.feed(Self.swipe(4))
        #expect(waitUntil(timeout: 20) { rig.calls().contains("EndGesture 4,true,250") }, "\(rig.calls())")
    }
}
