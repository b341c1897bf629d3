import EdgeSwipeTestSupport
import Foundation
import Glibc

/// The small C Wayland clients the compositor tests build and run (the files in `Tests/edgeswipedTests/Wayland/`):
/// each compiled once per test run with the system's C compiler and wayland-scanner, into a directory every user can
/// read, from its source and the protocol XML it speaks.
enum WaylandProbe: String, CaseIterable, Sendable {
    /// The overlay tests' window that logs pointer buttons, a virtual pointer, or a blocking layer surface.
    case clickProbe = "click-probe"
    /// A window with an app id that logs every key and modifier it receives.
    case keyLogger = "key-logger"
    /// Sends a chord through KDE's `org_kde_kwin_fake_input`, from our own XML.
    case fakeKeys = "fake-keys"
    /// A layer surface as the overlay makes one: configured, presented, destroyed.
    case layerProbe = "layer-probe"
    /// Input devices for a compositor that has none: a virtual pointer with no seat (phoc then creates its
    /// `wl_seat`), a virtual keyboard (the seat has a keyboard before a window maps).
    case virtualDevices = "virtual-devices"

    static let source = Paths.packageRoot.appendingPathComponent("Tests/edgeswipedTests/Wayland")
    static let xdgShell = "/usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml"
    static let ourProtocols = Paths.packageRoot.appendingPathComponent("Sources/CWayland/protocols")
    static let layerShell = ourProtocols.appendingPathComponent("wlr-layer-shell-unstable-v1.xml").path
    static let fakeInput = ourProtocols.appendingPathComponent("fake-input.xml").path
    static let virtualPointerXML = source.appendingPathComponent("wlr-virtual-pointer-unstable-v1.xml").path
    static let virtualKeyboardXML = ourProtocols.appendingPathComponent("virtual-keyboard-unstable-v1.xml").path

    /// The protocol XML the probe's source includes the glue of.
    var protocols: [String] {
        switch self {
        case .clickProbe: [Self.xdgShell, Self.virtualPointerXML, Self.layerShell]
        case .keyLogger: [Self.xdgShell]
        case .fakeKeys: [Self.fakeInput]
        case .layerProbe: [Self.layerShell]
        case .virtualDevices: [Self.virtualPointerXML, Self.virtualKeyboardXML]
        }
    }

    /// The libraries it links.
    var libraries: [String] { self == .keyLogger || self == .virtualDevices ? ["-lwayland-client", "-lxkbcommon"] : ["-lwayland-client"] }

    static var compiler: String? {
        ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Why the probes cannot be built here, or `nil`.
    static var unavailable: String? {
        if compiler == nil { return "no C compiler (apt install gcc): the compositor tests build their Wayland clients" }
        if !FileManager.default.fileExists(atPath: xdgShell) { return "no xdg-shell XML (apt install wayland-protocols)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/wayland-scanner") { return "no wayland-scanner (apt install libwayland-bin)" }
        if !FileManager.default.fileExists(atPath: "/usr/include/xkbcommon/xkbcommon.h") { return "no xkbcommon headers (apt install libxkbcommon-dev)" }
        return nil
    }

    nonisolated(unsafe) private static var built: [WaylandProbe: URL] = [:]
    nonisolated(unsafe) private static var directory: URL?
    private static let lock = NSLock()

    /// The probe's binary, built on first use.
    func binary() throws -> URL {
        try Self.lock.withLock {
            if let done = Self.built[self] { return done }
            if let why = Self.unavailable { throw DaemonTestError(why) }
            let dir = try Self.directory ?? Paths.tempDirectory()
            Self.directory = dir
            chmod(dir.path, 0o755)
            var sources = [Self.source.appendingPathComponent("\(rawValue).c").path]
            for xml in protocols {
                let name = URL(fileURLWithPath: xml).deletingPathExtension().lastPathComponent
                let code = dir.appendingPathComponent("\(name)-protocol.c")
                if !FileManager.default.fileExists(atPath: code.path) {
                    for (mode, out) in [("client-header", "\(name)-client-protocol.h"), ("private-code", "\(name)-protocol.c")] {
                        let r = try run(URL(fileURLWithPath: "/usr/bin/wayland-scanner"), [mode, xml, dir.appendingPathComponent(out).path])
                        guard r.status == 0 else { throw DaemonTestError("wayland-scanner \(mode) \(xml): \(r.stderr)") }
                    }
                }
                sources.append(code.path)
            }
            let output = dir.appendingPathComponent(rawValue)
            let r = try run(URL(fileURLWithPath: Self.compiler ?? "cc"), ["-O1", "-Wall", "-I", dir.path, "-o", output.path] + sources + libraries)
            guard r.status == 0 else { throw DaemonTestError("building \(rawValue): \(r.stderr)") }
            chmod(output.path, 0o755)
            Self.built[self] = output
            return output
        }
    }
}
