import EdgeSwipeBus
import EdgeSwipeSessionModel
import EdgeSwipeTestSupport
import Foundation
import NIOPosix
import Testing

@testable import EdgeSwipeSession

/// KWin's shortcuts and GNOME Shell's overview, against a real private dbus-daemon with python3-dbusmock's KWin and
/// GNOME Shell stand-ins (`scripts/seat-bus-mock.py kwin shell`).
@Suite("D-Bus effects: KWin and GNOME Shell on a private bus", .serialized, .enabled(if: MockSeatBus.isAvailable, "dbus-daemon or python3-dbusmock is missing"))
struct DesktopBusTests {
    static func firing(_ effect: Effect, name: String) -> Firing {
        Firing(
            rule: Rule(name: name, place: "s.toml:1", match: RuleMatch(), effect: effect), ruleIndex: 0, phase: .completed,
            facts: TransitionFacts(id: 1, container: "c", operation: "o", from: "a", to: "b"), app: nil)
    }

    static func session(address: String, desktop: Desktop, log: LogCapture) throws -> Session {
        let bus = try DesktopBus(logger: log.logger) { () throws(BusError) in try SDBus.connect(address: address) }
        return Session(
            rules: RuleSet(fileRules: [], file: "test", defaults: false), desktop: desktop, environment: [:], eventLoop: MultiThreadedEventLoopGroup.singleton.next(),
            compositor: nil, keys: nil, desktopBus: .success(bus), logger: log.logger)
    }

    @Test("a kwin_shortcut rule invokes the shortcut by name on KWin's kglobalaccel component")
    func kwin() throws {
        let mock = try MockSeatBus(["kwin"])
        let log = LogCapture()
        let session = try Self.session(address: mock.address, desktop: .kde, log: log)
        session.eventLoop.execute {
            session.fire(Self.firing(.kwinShortcut("Overview"), name: "overview"))
            session.fire(Self.firing(.kwinShortcut("Switch One Desktop to the Right"), name: "right"))
        }
        #expect(waitUntil(timeout: 10) { (try? mock.send("kwin-calls")) == "ok Overview,Switch One Desktop to the Right" }, "\(log.all)")
    }

    @Test("gnome_overview shows, hides and toggles GNOME Shell's OverviewActive")
    func gnome() throws {
        let mock = try MockSeatBus(["shell"])
        let log = LogCapture()
        let session = try Self.session(address: mock.address, desktop: .gnome, log: log)
        for (change, expected) in [(OverviewChange.show, "ok true"), (.toggle, "ok false"), (.toggle, "ok true"), (.hide, "ok false")] {
            session.eventLoop.execute { session.fire(Self.firing(.gnomeOverview(change), name: change.rawValue)) }
            #expect(waitUntil(timeout: 10) { (try? mock.send("overview")) == expected && log.contains("rule '\(change.rawValue)'") }, "\(change): \(log.all)")
        }
    }

    @Test("a missing service is said with the rule, and the next call works once it is there; other desktops refuse once")
    func missingService() throws {
        let mock = try MockSeatBus(["shell"])
        let log = LogCapture()
        let session = try Self.session(address: mock.address, desktop: .kde, log: log)
        session.eventLoop.execute { session.fire(Self.firing(.kwinShortcut("Overview"), name: "k")) }
        #expect(waitUntil(timeout: 10) { log.contains("rule 'k' (s.toml:1): kwin shortcut \"Overview\" failed:") }, "\(log.all)")
        try mock.send("start kwin")
        session.eventLoop.execute { session.fire(Self.firing(.kwinShortcut("Overview"), name: "k")) }
        #expect(waitUntil(timeout: 10) { (try? mock.send("kwin-calls")) == "ok Overview" }, "\(log.all)")
        session.eventLoop.execute {
            session.fire(Self.firing(.gnomeOverview(.show), name: "g"))
            session.fire(Self.firing(.gnomeOverview(.show), name: "g"))
        }
        #expect(waitUntil(timeout: 10) { log.all.filter { $0.contains("rule 'g' (s.toml:1): needs GNOME Shell") }.count == 1 }, "\(log.all)")
        #expect((try? mock.send("overview")) == "ok false")
    }
}
