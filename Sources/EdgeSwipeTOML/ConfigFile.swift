import EdgeSwipeSystem
import EdgeSwipeVocabulary
import SystemPackage

/// A configuration file as the project reads every one (the daemon's `config.toml`, the session's `session.toml`):
/// a regular file of at most ``maxFileBytes`` of UTF-8 text, parsed as TOML, each problem a ``ConfigError`` that
/// names the file and the line (a syntax error also the column).
public enum ConfigFile {
    /// A configuration is a few kilobytes; a file larger than this is not one.
    public static let maxFileBytes = 1 << 20

    /// The text of the file at `path`: a regular file of at most ``maxFileBytes`` of UTF-8 (the errors say which it
    /// is not). Every configuration file of the project is read through it.
    public static func readText(_ path: String) throws(ConfigError) -> String {
        let bytes = try read(path)
        if let bad = UTF8Check.firstInvalidOffset(bytes) {
            let lineStart = bytes[..<bad].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            let line = bytes[..<bad].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            throw ConfigError(
                file: path, line: line,
                message: "not UTF-8 text: byte 0x\(String(bytes[bad], radix: 16, uppercase: true)) at column \(bad - lineStart + 1); a configuration file is TOML text")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of a regular file of at most ``maxFileBytes``; anything else is refused saying what it is. Opened
    /// without blocking, so that a FIFO is refused rather than waited on.
    private static func read(_ path: String) throws(ConfigError) -> [UInt8] {
        func unreadable(_ message: String) -> ConfigError { ConfigError(file: path, line: nil, message: message, isUnreadable: true) }
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(
                FilePath(path), .readOnly, options: [.closeOnExec, .nonBlocking, FileDescriptor.noControllingTerminal])
        } catch {
            throw unreadable("cannot read the file: \(error)")
        }
        defer { try? fd.close() }
        let st: Stat
        do { st = try fd.stat() } catch { throw unreadable("cannot read the file: \(error)") }
        let kind: String? =
            switch st.type {
            case .regular: nil
            case .fifo: "a FIFO (named pipe)"
            case .characterSpecial: "a character device"
            case .blockSpecial: "a block device"
            case .directory: "a directory"
            case .socket: "a socket"
            default: "not a file"
            }
        if let kind { throw unreadable("is \(kind), not a regular file; a configuration is a TOML file") }
        guard st.size <= maxFileBytes else {
            throw unreadable("is \(st.size) bytes; a configuration file is at most \(maxFileBytes) bytes")
        }
        let bytes: [UInt8]
        do { bytes = try fd.readToEnd(reservingCapacity: Int(st.size)) { $0.count > maxFileBytes } } catch {
            throw unreadable("cannot read the file: \(error)")
        }
        guard bytes.count <= maxFileBytes else { throw unreadable("is more than \(maxFileBytes) bytes; a configuration file is at most that") }
        return bytes
    }

    /// The TOML of a configuration file, its syntax errors as ``ConfigError``s with line and column.
    public static func readTOML(_ text: String, file: String) throws(ConfigError) -> TOMLTable {
        do throws(TOMLError) {
            return try TOMLReader.read(text)
        } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, message: "TOML syntax: \(error.message)")
        }
    }
}
