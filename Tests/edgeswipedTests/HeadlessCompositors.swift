import EdgeSwipeTestSupport
import Foundation
import Glibc

/// phoc (Phosh's compositor, wlroots), headless with pixman and no input devices, in a ``HeadlessSession``.
///
/// phoc creates its `wl_seat` only with its first input device, so a fresh one has no seat: ``createSeat()`` starts a
/// virtual pointer and a virtual keyboard (``WaylandProbe/virtualDevices``) that make it, at whatever moment the test
/// chooses (issue 38: a session started by systemd can start before the seat exists). A window mapped before the seat
/// existed never gets keyboard focus; one mapped after does.
final class HeadlessPhoc: HeadlessCompositor {
    let session: HeadlessSession
    let process = Process()
    let logURL: URL
    private(set) var waylandDisplay = ""
    private(set) var startSeconds = 0.0
    private var seatMaker: HeadlessSession.Launched?

    /// Where phoc must run (CI): its absence is then a failure, not a skip.
    static var required: Bool { ProcessInfo.processInfo.environment["EDGESWIPE_REQUIRE_PHOC"] == "1" }

    /// Why phoc's tests cannot run here, or `nil`.
    static var unavailable: String? {
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/phoc") {
            return "phoc is not installed (apt install phoc): the compositor matrix runs on a real one"
        }
        return WaylandProbe.unavailable
    }

    init(width: Int = 1280, height: Int = 800) throws {
        session = try HeadlessSession(name: "phoc")
        let config = try session.write("[core]\nxwayland=false\n\n[output:HEADLESS-1]\nmode=\(width)x\(height)\n", to: "phoc.ini")
        logURL = try session.writableFile("phoc.log")
        let (session, process) = (session, process)
        startSeconds = try secondsTaken {
            try session.launch(process, ["/usr/bin/phoc", "-C", config.path], environment: [
                "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
                // phoc reads its settings through GSettings: from memory, not the user's dconf.
                "GSETTINGS_BACKEND": "memory",
            ], log: logURL)
            _ = waitUntil(timeout: 20) { session.waylandSocket != nil || !process.isRunning }
        }
        guard process.isRunning, let socket = session.waylandSocket else {
            throw DaemonTestError("phoc did not start:\n\(session.describeLogs())")
        }
        waylandDisplay = socket
    }

    var environment: [String: String] { session.baseEnvironment.merging(["WAYLAND_DISPLAY": waylandDisplay]) { $1 } }

    /// Gives phoc its seat, with a pointer and a keyboard (kept until phoc stops), and waits for both.
    func createSeat() throws {
        guard seatMaker == nil else { return }
        let maker = try startClient("virtual-devices", [WaylandProbe.virtualDevices.binary().path, "pointer", "keyboard"])
        seatMaker = maker
        guard maker.waitForLine({ $0 == "keyboard" }), maker.lines.contains(where: { $0.hasPrefix("seat ") }) else {
            throw DaemonTestError("phoc made no wl_seat with a keyboard for virtual devices:\n\(session.describeLogs())")
        }
    }
}

/// KWin 5.27 (`kwin_wayland --virtual`), headless with QPainter compositing, on a private session bus, in a
/// ``HeadlessSession``.
///
/// - The packaged binary carries a file capability (`cap_sys_resource`) that this VM's bounding set lacks, so exec
///   fails; a copy (which loses the capability) runs instead.
/// - KWin serves `org.kde.KWin` (its scripting, `/Scripting`), `org.kde.kglobalaccel` and its virtual desktops on
///   the session bus, and grants its restricted Wayland interfaces after reading desktop entries: a private
///   `dbus-daemon` at `$XDG_RUNTIME_DIR/bus` (where sd-bus and GLib look) and the session's `HOME` (whose
///   `.local/share/applications` KWin searches) are the test's. Desktop entries written before the start are read
///   at once; KWin's cache of them (KSycoca) notices later ones only after a delay.
/// - It is ready when `org.kde.KWin` is on the bus (its workspace exists; the Wayland socket came before).
final class HeadlessKWin: HeadlessCompositor {
    let session: HeadlessSession
    let bus = Process()
    let process = Process()
    let logURL: URL
    let waylandDisplay = "wayland-kwin"
    private(set) var startSeconds = 0.0

    /// Where KWin must run (CI): its absence is then a failure, not a skip.
    static var required: Bool { ProcessInfo.processInfo.environment["EDGESWIPE_REQUIRE_KWIN"] == "1" }

    /// Why KWin's tests cannot run here, or `nil`.
    static var unavailable: String? {
        if !FileManager.default.fileExists(atPath: "/usr/bin/kwin_wayland") {
            return "KWin is not installed (apt install kwin-wayland): the compositor matrix runs on a real one"
        }
        for tool in ["/usr/bin/dbus-daemon", "/usr/bin/busctl", "/usr/bin/gdbus"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (apt install dbus-daemon systemd libglib2.0-bin): KWin's tests run it on a private session bus"
        }
        return WaylandProbe.unavailable
    }

    /// The private session bus's configuration: the session's user alone, everything allowed on it.
    static func busConfiguration(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }

    /// Where the tests install the binaries desktop entries name: `make install`'s BINDIR for this session.
    var binDirectory: URL { session.directory.appendingPathComponent("bin") }

    /// Starts the bus and KWin, with `desktopEntries` installed first in `~/.local/share/applications`, as `make
    /// install` installs them, their `/usr/local/bin` replaced by ``binDirectory``.
    init(width: Int = 1280, height: Int = 800, installing desktopEntries: [URL] = []) throws {
        session = try HeadlessSession(name: "kwin")
        let bin = session.directory.appendingPathComponent("bin")
        for entry in desktopEntries {
            let text = try String(contentsOf: entry, encoding: .utf8).replacingOccurrences(of: "/usr/local/bin", with: bin.path)
            try session.write(text, to: ".local/share/applications/\(entry.lastPathComponent)", under: session.home)
        }
        let busSocket = session.runtimeDirectory.appendingPathComponent("bus").path
        let busConfig = try session.write(Self.busConfiguration(socket: busSocket), to: "bus.conf")
        let kwin = try session.copyExecutable(URL(fileURLWithPath: "/usr/bin/kwin_wayland"), as: "kwin_wayland")
        logURL = try session.writableFile("kwin.log")
        let (session, bus, process, display) = (session, bus, process, waylandDisplay)
        startSeconds = try secondsTaken {
            try session.launch(bus, ["/usr/bin/dbus-daemon", "--config-file=\(busConfig.path)", "--nofork", "--nopidfile"],
                               environment: [:], log: session.writableFile("dbus.log"))
            guard waitUntil(timeout: 20, { FileManager.default.fileExists(atPath: busSocket) || !bus.isRunning }), bus.isRunning else {
                throw DaemonTestError("the private session bus did not start:\n\(session.describeLogs())")
            }
            try session.launch(process, [kwin.path, "--virtual", "--width", "\(width)", "--height", "\(height)", "--no-lockscreen", "--socket", display],
                               environment: [
                                   "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(busSocket)", "KWIN_COMPOSE": "Q", "XDG_CURRENT_DESKTOP": "KDE",
                                   // Which clients KWin grants its restricted interfaces, and why not, in its log.
                                   "QT_LOGGING_RULES": "kwin_core.debug=true;KWIN_UTILS.debug=true",
                               ], log: logURL)
            // org.kde.KWin is registered once the workspace exists, after the Wayland socket: one `gdbus wait`
            // instead of polling.
            let named = try session.run(["/usr/bin/gdbus", "wait", "--session", "--timeout", "40", "org.kde.KWin"],
                                        environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(busSocket)"], timeout: 50)
            guard named.status == 0, process.isRunning,
                  FileManager.default.fileExists(atPath: session.runtimeDirectory.appendingPathComponent(display).path) else {
                throw DaemonTestError("KWin did not start (gdbus wait: \(named.output)):\n\(session.describeLogs())")
            }
        }
    }

    var busAddress: String { "unix:path=" + session.runtimeDirectory.appendingPathComponent("bus").path }

    var environment: [String: String] {
        session.baseEnvironment.merging(["WAYLAND_DISPLAY": waylandDisplay, "DBUS_SESSION_BUS_ADDRESS": busAddress, "XDG_CURRENT_DESKTOP": "KDE"]) { $1 }
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// `busctl --user ARGUMENTS` on KWin's bus, as the session's user.
    func busctl(_ arguments: [String], timeout: Double = 20) throws -> (status: Int32, output: String) {
        try runClient(["/usr/bin/busctl", "--user"] + arguments, timeout: timeout)
    }
}
