public import EdgeSwipeBus
public import EdgeSwipeSessionModel
public import EdgeSwipeVocabulary
import EdgeSwipeSystem
public import Logging
import NIOConcurrencyHelpers
public import SystemPackage

/// The effects that live on the session bus: KWin's global shortcuts (`org.kde.kglobalaccel`'s `invokeShortcut`) and
/// GNOME Shell's overview (`org.gnome.Shell`'s `OverviewActive`).
///
/// sd-bus calls wait for their reply, so they run on a thread of their own, in order, each with a timeout; the
/// session's event loop only queues them. The bus is connected at the first call, and again after it breaks.
public final class DesktopBus: Sendable {
    /// How long KWin or GNOME Shell has to answer.
    public static let callTimeout = Microseconds(2_000_000)

    private let logger: Logger
    private let wake: WakePipe
    private let queue = NIOLockedValueBox<[(rule: Rule, effect: Effect)]>([])
    private let connect: @Sendable () throws(BusError) -> SDBus

    /// `connect` opens the bus (the user's session bus, or a test's private one).
    public init(logger: Logger, connect: @escaping @Sendable () throws(BusError) -> SDBus = { () throws(BusError) in try SDBus.user() }) throws(Errno) {
        self.logger = logger
        self.connect = connect
        wake = try WakePipe()
        try SystemThread.start(name: "session-bus", detached: true) { [self] in run() }
    }

    /// Queues `effect` for `rule`; from any thread, without waiting.
    public func perform(_ effect: Effect, rule: Rule) {
        queue.withLockedValue { $0.append((rule, effect)) }
        wake.wake()
    }

    private func run() {
        var bus: SDBus? = nil
        let waiter = DescriptorWaiter()
        while true {
            waiter.removeAll()
            waiter.add(wake.readEnd)
            do { try waiter.wait(timeoutMicroseconds: nil) } catch { continue }
            wake.drain()
            let batch = queue.withLockedValue { q -> [(rule: Rule, effect: Effect)] in
                defer { q.removeAll() }
                return q
            }
            for (rule, effect) in batch {
                if bus == nil || bus?.isOpen == false {
                    do { bus = try connect() } catch {
                        logger.error("\(rule): cannot reach the session bus: \(error)")
                        bus = nil
                        continue
                    }
                }
                guard let connected = bus else { continue }
                do { try Self.carryOut(effect, on: connected, rule: rule, logger: logger) } catch {
                    logger.error("\(rule): \(effect) failed: \(error)")
                    if case .system = error { bus = nil }
                }
            }
        }
    }

    static let kwin = BusMethod(destination: "org.kde.kglobalaccel", path: "/component/kwin", interface: "org.kde.kglobalaccel.Component", member: "invokeShortcut")
    static let setProperty = BusMethod(destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.freedesktop.DBus.Properties", member: "Set")

    private static func carryOut(_ effect: Effect, on bus: SDBus, rule: Rule, logger: Logger) throws(BusError) {
        switch effect {
        case .kwinShortcut(let name):
            _ = try bus.call(kwin, values: [.string(name)], timeout: callTimeout)
            logger.debug("\(rule): KWin invoked '\(name)'")
        case .gnomeOverview(let change):
            let active: Bool
            switch change {
            case .show: active = true
            case .hide: active = false
            case .toggle:
                let reply = try bus.call(BusMethod.getProperty("org.gnome.Shell", "/org/gnome/Shell"), ["org.gnome.Shell", "OverviewActive"], timeout: callTimeout)
                guard case .bool(let now)? = reply.body.first?.unwrapped else {
                    throw .reply(call: "org.gnome.Shell OverviewActive", problem: "not a boolean: \(reply.body)")
                }
                active = !now
            }
            _ = try bus.call(setProperty, values: [.string("org.gnome.Shell"), .string("OverviewActive"), .variant(.bool(active))], timeout: callTimeout)
            logger.debug("\(rule): GNOME Shell's overview \(active ? "shown" : "hidden")")
        case .workspace, .sway, .hyprland, .niri, .key, .command:
            logger.error("\(rule): \(effect) is not a D-Bus effect")
        }
    }
}
