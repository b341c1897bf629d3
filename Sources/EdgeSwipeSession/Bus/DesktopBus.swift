public import EdgeSwipeBus
public import EdgeSwipeSessionModel
public import EdgeSwipeVocabulary
import EdgeSwipeSystem
public import Logging
public import SystemPackage

/// The effects that live on the session bus: KWin's global shortcuts (`org.kde.kglobalaccel`'s `invokeShortcut`) and
/// GNOME Shell's overview (`org.gnome.Shell`'s `OverviewActive`).
///
/// They run on the session's bus thread (``BusLoop``), in order, each call answered within ``callTimeout``, without
/// waiting there either: the session's event loop only queues them.
public final class DesktopBus: Sendable {
    /// How long KWin or GNOME Shell has to answer.
    public static let callTimeout = Microseconds(2_000_000)

    /// The bus thread the effects run on (GNOME's backend shares it).
    public let loop: BusLoop

    public init(loop: BusLoop) { self.loop = loop }

    /// A bus thread of its own; `connect` opens the bus (the user's session bus, or a test's private one).
    public convenience init(logger: Logger, connect: @escaping @Sendable () throws(BusError) -> SDBus = { () throws(BusError) in try SDBus.user() }) throws(Errno) {
        self.init(loop: try BusLoop(logger: logger, connect: connect))
    }

    /// Queues `effect` for `rule`; from any thread, without waiting.
    public func perform(_ effect: Effect, rule: Rule) {
        loop.enqueue { context in Self.carryOut(effect, rule: rule, context) }
    }

    static let kwin = BusMethod(destination: "org.kde.kglobalaccel", path: "/component/kwin", interface: "org.kde.kglobalaccel.Component", member: "invokeShortcut")
    static let setProperty = BusMethod(destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.freedesktop.DBus.Properties", member: "Set")

    private static func carryOut(_ effect: Effect, rule: Rule, _ context: BusContext) {
        let logger = context.logger
        func failed(_ error: BusError) { logger.error("\(rule): \(effect) failed: \(error)") }
        switch effect {
        case .kwinShortcut(let name):
            context.callAsync(kwin, values: [.string(name)], timeout: callTimeout) { result in
                switch result {
                case .success: logger.debug("\(rule): KWin invoked '\(name)'")
                case .failure(let error): failed(error)
                }
            }
        case .gnomeOverview(let change):
            func set(_ active: Bool) {
                context.callAsync(setProperty, values: [.string("org.gnome.Shell"), .string("OverviewActive"), .variant(.bool(active))], timeout: callTimeout) { result in
                    switch result {
                    case .success: logger.debug("\(rule): GNOME Shell's overview \(active ? "shown" : "hidden")")
                    case .failure(let error): failed(error)
                    }
                }
            }
            switch change {
            case .show: set(true)
            case .hide: set(false)
            case .toggle:
                context.callAsync(
                    BusMethod.getProperty("org.gnome.Shell", "/org/gnome/Shell"), values: [.string("org.gnome.Shell"), .string("OverviewActive")],
                    timeout: callTimeout
                ) { result in
                    switch result {
                    case .success(let reply):
                        guard case .bool(let now)? = reply.body.first?.unwrapped else {
                            return failed(.reply(call: "org.gnome.Shell OverviewActive", problem: "not a boolean: \(reply.body)"))
                        }
                        set(!now)
                    case .failure(let error): failed(error)
                    }
                }
            }
        case .workspace, .sway, .hyprland, .niri, .key, .command:
            logger.error("\(rule): \(effect) is not a D-Bus effect")
        }
    }
}
