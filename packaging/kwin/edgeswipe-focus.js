// EdgeSwipe's focus reporter, a KWin script: edgeswipe-session loads it over D-Bus (org.kde.kwin.Scripting's
// loadScript, then start), and unloads it (unloadScript) when it exits. It tells the session which window is active,
// so that rules with `app = ...` work on Plasma, where no Wayland protocol KWin offers an ordinary client says so.
// docs/COMPOSITORS.md explains the choice, the method and who may call it.
//
// The session writes this file with its own unique bus name in place of the placeholder below, so that the reports
// go to that connection and to no name another program could take first. The reports carry the window's resource
// class and desktop file name, never its title.
//
// KWin 5.27 calls windows clients (workspace.clientActivated, workspace.activeClient, a resourceClass of bytes);
// Plasma 6 calls them windows (workspace.windowActivated, workspace.activeWindow, a string). Both are handled.
const destination = "@EDGESWIPE_BUS_NAME@";

function text(value) {
    if (value === undefined || value === null) {
        return "";
    }
    // KWin 5.27 gives resourceClass as a QByteArray, which reaches JavaScript as an ArrayBuffer.
    if (value instanceof ArrayBuffer) {
        let s = "";
        const bytes = new Uint8Array(value);
        for (let i = 0; i < bytes.length; i++) {
            s += String.fromCharCode(bytes[i]);
        }
        return s;
    }
    return String(value);
}

function report(window) {
    const resourceClass = window ? text(window.resourceClass) : "";
    const desktopFile = window ? text(window.desktopFileName) : "";
    callDBus(destination, "/org/edgeswipe/Session", "org.edgeswipe.Focus1", "Activated", resourceClass, desktopFile);
}

const activated = workspace.windowActivated || workspace.clientActivated;
activated.connect(report);
report(workspace.activeWindow !== undefined ? workspace.activeWindow : workspace.activeClient);
