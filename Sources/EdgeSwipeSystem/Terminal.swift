import Glibc

/// The terminal a descriptor writes to, for views that redraw their bottom lines (`edgeswipectl monitor`).
public enum Terminal {
    /// The terminal's width in columns (`TIOCGWINSZ`), or `nil` when the descriptor is no terminal or says 0.
    public static func columns(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The rows `line` takes on a terminal `columns` wide: a line of exactly `columns` characters leaves the
    /// cursor on its own row (the wrap is deferred until the next character). Counts characters, which is the
    /// width of everything the monitor draws (ASCII and the block elements of its bars).
    public static func rows(of line: String, columns: Int) -> Int {
        guard columns > 0 else { return 1 }
        return max(1, (line.count - 1) / columns + 1)
    }
}
