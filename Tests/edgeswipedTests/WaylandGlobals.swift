import EdgeSwipeTestSupport
import Foundation
import Glibc

/// What a headless compositor offers an ordinary client, among the globals the session relies on, as `wayland-info`
/// (Debian's `wayland-utils`) lists them right after the compositor started: the basis of docs/COMPOSITORS.md's table,
/// which ``table`` is, and which the compositor matrix measures again on every run.
struct WaylandGlobals: Equatable, CustomStringConvertible {
    enum Compositor: String, CaseIterable, Sendable {
        case sway, phoc, kwin, cage, weston

        /// Why it cannot be measured here, or `nil`.
        var unavailable: String? {
            switch self {
            case .sway: HeadlessSway.unavailable
            case .phoc: HeadlessPhoc.unavailable
            case .kwin: HeadlessKWin.unavailable
            case .cage: FileManager.default.isExecutableFile(atPath: "/usr/bin/cage") ? nil : "cage is not installed (apt install cage)"
            case .weston: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston") ? nil : "weston is not installed (apt install weston)"
            }
        }

        /// Whether its absence fails the run (CI) rather than skipping it.
        var required: Bool {
            switch self {
            case .sway: ClickProbe.required
            case .phoc: HeadlessPhoc.required
            case .kwin: HeadlessKWin.required
            case .cage, .weston: WaylandGlobals.required
            }
        }

        /// Starts it headless as the session's user and lists its globals.
        func measure() throws -> WaylandGlobals {
            let info = ["/usr/bin/wayland-info"]
            let wlroots = ["WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"]
            let listing: String
            switch self {
            case .sway: listing = try HeadlessSway(config: "").runClient(info).output
            case .phoc: listing = try HeadlessPhoc().runClient(info).output
            case .kwin: listing = try HeadlessKWin().runClient(info).output
            case .cage:
                // A kiosk runs one client and exits with it: wayland-info is that client.
                let session = try HeadlessSession(name: "cage")
                listing = try session.run(["/usr/bin/cage", "--"] + info, environment: wlroots).output
            case .weston:
                let session = try HeadlessSession(name: "weston")
                let weston = try session.start("weston", [
                    "/usr/bin/weston", "--backend=headless-backend.so", "--use-pixman", "--socket=wayland-weston", "--width=1280", "--height=800",
                    "--idle-time=0",
                ])
                let socket = session.runtimeDirectory.appendingPathComponent("wayland-weston").path
                guard waitUntil(timeout: 20, { FileManager.default.fileExists(atPath: socket) || !weston.isRunning }), weston.isRunning else {
                    throw DaemonTestError("weston did not start:\n\(session.describeLogs())")
                }
                listing = try session.run(info, environment: ["WAYLAND_DISPLAY": "wayland-weston"]).output
            }
            return WaylandGlobals(self, listing: listing)
        }
    }

    var compositor: Compositor
    /// `zwlr_layer_shell_v1`'s version: the overlay's protocol.
    var layerShell: Int?
    /// `zwp_virtual_keyboard_manager_v1`: keys on wlroots compositors.
    var virtualKeyboard: Bool
    /// `org_kde_kwin_fake_input`, to a client no desktop entry names: keys on KWin once granted.
    var fakeInput: Bool
    /// `zwlr_foreign_toplevel_manager_v1`: which window is active, where there is no compositor IPC (phoc).
    var foreignToplevel: Bool
    /// `zwlr_screencopy_manager_v1`: screenshots with grim.
    var screencopy: Bool
    /// `wp_presentation`.
    var presentation: Bool
    /// `wl_compositor`'s version (the session's overlay asks for 4; some older clients fail on 5 or 6).
    var wlCompositor: Int
    /// `wl_seat`'s version right after the start, or `nil` while there is no seat.
    var seatAtStart: Int?

    init(_ compositor: Compositor, layerShell: Int?, virtualKeyboard: Bool, fakeInput: Bool, foreignToplevel: Bool, screencopy: Bool,
         presentation: Bool, wlCompositor: Int, seatAtStart: Int?) {
        self.compositor = compositor
        self.layerShell = layerShell
        self.virtualKeyboard = virtualKeyboard
        self.fakeInput = fakeInput
        self.foreignToplevel = foreignToplevel
        self.screencopy = screencopy
        self.presentation = presentation
        self.wlCompositor = wlCompositor
        self.seatAtStart = seatAtStart
    }

    /// From `wayland-info`'s lines `interface: 'NAME', version: N, name: M`.
    init(_ compositor: Compositor, listing: String) {
        var versions: [String: Int] = [:]
        for line in listing.split(separator: "\n") {
            guard let start = line.range(of: "interface: '"), let end = line[start.upperBound...].firstIndex(of: "'"),
                  let v = line.range(of: "version:") else { continue }
            let digits = line[v.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }
            versions[String(line[start.upperBound..<end])] = Int(digits) ?? 0
        }
        self.init(
            compositor, layerShell: versions["zwlr_layer_shell_v1"], virtualKeyboard: versions["zwp_virtual_keyboard_manager_v1"] != nil,
            fakeInput: versions["org_kde_kwin_fake_input"] != nil, foreignToplevel: versions["zwlr_foreign_toplevel_manager_v1"] != nil,
            screencopy: versions["zwlr_screencopy_manager_v1"] != nil, presentation: versions["wp_presentation"] != nil,
            wlCompositor: versions["wl_compositor"] ?? 0, seatAtStart: versions["wl_seat"])
    }

    var description: String {
        func yes(_ b: Bool) -> String { b ? "yes" : "no" }
        return "\(compositor.rawValue): layer-shell \(layerShell.map { "v\($0)" } ?? "no"), virtual keyboard \(yes(virtualKeyboard)), "
            + "fake input \(yes(fakeInput)), foreign toplevel \(yes(foreignToplevel)), screencopy \(yes(screencopy)), "
            + "presentation \(yes(presentation)), wl_compositor v\(wlCompositor), wl_seat at start \(seatAtStart.map { "v\($0)" } ?? "none")"
    }

    /// docs/COMPOSITORS.md's table, as measured on Debian 12 (sway 1.7, phoc 0.24, KWin 5.27.5, cage 0.1.4, weston 10).
    static let table: [WaylandGlobals] = [
        WaylandGlobals(.sway, layerShell: 4, virtualKeyboard: true, fakeInput: false, foreignToplevel: true, screencopy: true, presentation: true,
                       wlCompositor: 4, seatAtStart: 7),
        WaylandGlobals(.phoc, layerShell: 4, virtualKeyboard: true, fakeInput: false, foreignToplevel: true, screencopy: true, presentation: true,
                       wlCompositor: 4, seatAtStart: nil),
        WaylandGlobals(.kwin, layerShell: 3, virtualKeyboard: false, fakeInput: false, foreignToplevel: false, screencopy: false, presentation: false,
                       wlCompositor: 5, seatAtStart: 8),
        WaylandGlobals(.cage, layerShell: nil, virtualKeyboard: false, fakeInput: false, foreignToplevel: false, screencopy: true, presentation: false,
                       wlCompositor: 4, seatAtStart: 7),
        WaylandGlobals(.weston, layerShell: nil, virtualKeyboard: false, fakeInput: false, foreignToplevel: false, screencopy: false, presentation: true,
                       wlCompositor: 4, seatAtStart: nil),
    ]

    /// Why the globals cannot be listed at all (no wayland-info), or `nil`.
    static var unavailable: String? {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/wayland-info") ? nil : "wayland-info is not installed (apt install wayland-utils)"
    }

    /// The matrix must run (CI): any of its compositors' requirements is set.
    static var required: Bool { ClickProbe.required || HeadlessPhoc.required || HeadlessKWin.required }
}
