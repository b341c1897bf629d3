public import EdgeSwipeProtocol

// What the session reads from compositors and the requests it builds from outside facts, apart from the sockets:
// pure, so that it is tested without a compositor and fuzzed (Fuzz/Targets/SwayIPCReplies.swift, NiriReplies.swift,
// HyprlandReplies.swift). The connections are the desktop module's (Compositor/).

/// The i3 IPC framing sway speaks: `i3-ipc`, the payload's length and the message type (both 32-bit, native byte
/// order), then the payload (JSON, or a command's text).
public enum I3IPCFrame {
    public static let magic: [UInt8] = Array("i3-ipc".utf8)
    public static let headerBytes = 14
    /// Replies and events longer than this are refused (a whole tree is tens of kilobytes).
    public static let maxPayloadBytes = 16 << 20
    /// How deep a reply's JSON may nest (a tree of nested containers; deeper is refused, never a stack overflow).
    public static let maxDepth = 512

    public enum MessageType: UInt32, Sendable {
        case runCommand = 0, getWorkspaces = 1, subscribe = 2, getOutputs = 3, getTree = 4
    }
    /// Events have the high bit set.
    public static let eventBit: UInt32 = 0x8000_0000
    public static let workspaceEvent: UInt32 = eventBit | 0
    public static let windowEvent: UInt32 = eventBit | 3

    public static func encode(_ type: MessageType, _ payload: String) -> [UInt8] {
        let body = Array(payload.utf8)
        var out = magic
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: body.count).littleEndian) { out += $0 }
        withUnsafeBytes(of: type.rawValue.littleEndian) { out += $0 }
        return out + body
    }

    /// A frame read back: its type and payload.
    public struct Frame: Hashable, Sendable {
        public var type: UInt32
        public var payload: [UInt8]
        public init(type: UInt32, payload: [UInt8]) {
            self.type = type
            self.payload = payload
        }
    }

    public struct FramingError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Takes whole frames off the front of `buffer`, leaving a partial one; an error for bytes that are not i3 IPC.
    public static func decode(_ buffer: inout [UInt8]) throws(FramingError) -> [Frame] {
        var frames: [Frame] = []
        var start = 0
        while buffer.count - start >= headerBytes {
            guard buffer[start..<start + 6].elementsEqual(magic) else {
                let shown = buffer[start..<min(buffer.count, start + 12)].map { $0 >= 0x20 && $0 < 0x7f ? String(UnicodeScalar($0)) : "." }.joined()
                throw FramingError(description: "not i3 IPC: a frame starts with '\(shown)', not 'i3-ipc'")
            }
            let length = Int(UInt32(littleEndian: read32(buffer, start + 6)))
            let type = UInt32(littleEndian: read32(buffer, start + 10))
            guard length <= maxPayloadBytes else {
                throw FramingError(description: "a frame of \(length) bytes, over the \(maxPayloadBytes) accepted")
            }
            guard buffer.count - start - headerBytes >= length else { break }
            frames.append(Frame(type: type, payload: Array(buffer[start + headerBytes..<start + headerBytes + length])))
            start += headerBytes + length
        }
        buffer.removeFirst(start)
        return frames
    }

    private static func read32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    /// Sway's answer to `RUN_COMMAND`: one `{"success": …, "error": …}` per command; the errors, or why the reply is
    /// not one.
    public static func commandErrors(_ payload: [UInt8]) -> [String] {
        guard let value = try? JSONValue.parse(payload, maxDepth: maxDepth), case .array(let results) = value else {
            return ["the reply is not a JSON array of results: \(String(decoding: payload.prefix(80), as: UTF8.self))"]
        }
        return results.compactMap { r in
            guard r["success"]?.boolValue == true else { return r["error"]?.stringValue ?? "failed (no reason given)" }
            return nil
        }
    }

    /// What a frame on the event connection says of focus: the app id (or X11 class) of the focused window, from
    /// the `GET_TREE` reply or a `window` event whose change is `focus` (`.some(nil)`: nothing focused); `.none`
    /// when the frame says nothing of focus (another event, or not JSON).
    public static func focus(in frame: Frame) -> String?? {
        guard frame.type == MessageType.getTree.rawValue || frame.type == windowEvent,
              let value = try? JSONValue.parse(frame.payload, maxDepth: maxDepth) else { return .none }
        if frame.type == MessageType.getTree.rawValue { return .some(focusedApp(inTree: value)) }
        guard value["change"]?.stringValue == "focus", let container = value["container"] else { return .none }
        return .some(appID(of: container))
    }

    /// The app id (or X11 class) of the focused window in a `GET_TREE` reply or a `window` event's container.
    /// Recursive, at most ``maxDepth`` deep: the parser refused anything deeper.
    public static func focusedApp(inTree node: JSONValue) -> String? {
        if node["focused"]?.boolValue == true, node["type"]?.stringValue == "con" || node["type"]?.stringValue == "floating_con" {
            return appID(of: node)
        }
        for key in ["nodes", "floating_nodes"] {
            if case .array(let children)? = node[key] {
                for child in children { if let app = focusedApp(inTree: child) { return app } }
            }
        }
        return nil
    }

    static func appID(of container: JSONValue) -> String? {
        container["app_id"]?.stringValue ?? container["window_properties"]?["class"]?.stringValue
    }
}

/// Splits a byte stream into lines (niri's and Hyprland's events), bounded: a line past `maxBytes` is dropped.
public struct LineSplitter: Sendable {
    private var pending: [UInt8] = []
    private var discarding = false
    public let maxBytes: Int

    public init(maxBytes: Int = 1 << 20) { self.maxBytes = maxBytes }

    public mutating func feed(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for b in bytes {
            if b == UInt8(ascii: "\n") {
                if !discarding { lines.append(pending) }
                pending.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                pending.append(b)
                if pending.count > maxBytes {
                    pending.removeAll()
                    discarding = true
                }
            }
        }
        return lines
    }

    public mutating func reset() {
        pending.removeAll()
        discarding = false
    }

    /// Bytes of an unfinished line held now (at most `maxBytes`).
    public var pendingBytes: Int { pending.count }
}

/// niri's replies and events, as the session reads them.
public enum NiriWire {
    /// Why a reply line is not `{"Ok":…}`, or `nil` when it is.
    public static func problem(inReply reply: [UInt8]) -> String? {
        let line = Array(reply.prefix { $0 != UInt8(ascii: "\n") })
        guard let value = try? JSONValue.parse(line) else {
            return "the reply is not JSON: \(String(decoding: line.prefix(80), as: UTF8.self))"
        }
        if value["Ok"] != nil { return nil }
        if let err = value["Err"]?.stringValue { return err }
        return "the reply is neither Ok nor Err: \(String(decoding: line.prefix(80), as: UTF8.self))"
    }

    /// The app ids of niri's windows, and which is focused, from its event stream; at most ``maxWindows`` windows
    /// (a compositor that names more, or a hostile one, cannot grow it further).
    public struct FocusState: Sendable {
        public private(set) var apps: [Int64: String] = [:]
        public private(set) var focused: Int64?
        public static let maxWindows = 4096

        public init() {}

        /// Applies one event line; the focused app when it may have changed.
        public mutating func apply(_ line: [UInt8]) -> String?? {
            guard let event = try? JSONValue.parse(line, maxDepth: 64) else { return .none }
            if case .array(let windows)? = event["WindowsChanged"]?["windows"] {
                apps = [:]
                focused = nil
                for w in windows {
                    guard let id = w["id"]?.intValue else { continue }
                    remember(id, w["app_id"]?.stringValue ?? "")
                    if w["is_focused"]?.boolValue == true { focused = id }
                }
                return .some(current)
            }
            if let w = event["WindowOpenedOrChanged"]?["window"], let id = w["id"]?.intValue {
                remember(id, w["app_id"]?.stringValue ?? "")
                if w["is_focused"]?.boolValue == true { focused = id }
                return .some(current)
            }
            if let id = event["WindowClosed"]?["id"]?.intValue {
                apps[id] = nil
                if focused == id { focused = nil }
                return .some(current)
            }
            if let change = event["WindowFocusChanged"] {
                focused = change["id"]?.intValue
                return .some(current)
            }
            return .none
        }

        private mutating func remember(_ id: Int64, _ app: String) {
            guard apps[id] != nil || apps.count < Self.maxWindows else { return }
            apps[id] = app
        }

        public var current: String? { focused.flatMap { apps[$0] }.flatMap { $0.isEmpty ? nil : $0 } }
    }
}

/// Hyprland's requests and replies, as the session builds and reads them.
public enum HyprlandWire {
    /// Why an output name cannot go into a request, or `nil`: Hyprland's `[[BATCH]]` splits its text at every `;`
    /// (it has no quoting: `dispatchBatch` in its HyprCtl.cpp), trims each command's white space, and reads the
    /// request as a C string (up to a NUL), so a name with `;`, a control character (a NUL, a line break) or white
    /// space at either end would change the commands. Names come from udev's `WL_OUTPUT` or the daemon's
    /// configuration (`HDMI-A-1`, `eDP-1`); one that is refused is refused with the rule, never mended.
    public static func outputNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > 256 { return "is \(name.utf8.count) bytes long (at most 256)" }
        // In bytes: ";" followed by a combining mark is one Character that is not ";", and Hyprland splits bytes.
        if name.utf8.contains(UInt8(ascii: ";")) { return "contains ';', which separates Hyprland's batched commands" }
        if let c = name.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "contains the control character U+\(String(c.value, radix: 16, uppercase: true))"
        }
        // By Unicode scalar, as Hyprland reads bytes: a space followed by a combining mark is one Character, which
        // Swift counts as white space although the name does not end in a space.
        if name.unicodeScalars.first?.properties.isWhitespace == true || name.unicodeScalars.last?.properties.isWhitespace == true {
            return "begins or ends with white space"
        }
        return nil
    }

    /// The request a workspace rule sends: `m+1` is the next workspace on the focused monitor, after focusing the
    /// gesture's output when the daemon knows it (one `[[BATCH]]` request of two commands); an error naming why an
    /// output's name cannot be sent.
    public static func workspaceRequest(_ step: WorkspaceStep, output: String?) -> Result<String, WorkspaceRequestError> {
        let move = "dispatch workspace \(step == .next ? "m+1" : "m-1")"
        guard let output else { return .success(move) }
        if let problem = outputNameProblem(output) { return .failure(WorkspaceRequestError(output: output, problem: problem)) }
        return .success("[[BATCH]]dispatch focusmonitor \(output);\(move)")
    }

    public struct WorkspaceRequestError: Error, Hashable, Sendable, CustomStringConvertible {
        public var output: String
        public var problem: String
        public var description: String {
            let shown = output.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
            return "the output's name '\(shown)' \(problem): not sent to Hyprland"
        }
    }

    /// The commands a request asks Hyprland to run, as its `[[BATCH]]` splits them (what the fuzzer checks the
    /// workspace request against).
    public static func commands(in request: String) -> [String] {
        guard request.hasPrefix("[[BATCH]]") else { return [request] }
        return request.unicodeScalars.dropFirst("[[BATCH]]".count).split(separator: ";", omittingEmptySubsequences: true)
            .map { String($0).trimmingWhiteSpace }.filter { !$0.isEmpty }
    }

    /// A reply's text, without the white space around it.
    public static func text(ofReply reply: [UInt8]) -> String { String(decoding: reply, as: UTF8.self).trimmingWhiteSpace }

    /// `ok`, or one `ok` per command of a batch.
    public static func isOK(_ text: String) -> Bool {
        let parts = text.split(whereSeparator: \.isWhitespace)
        return !parts.isEmpty && parts.allSatisfy { $0 == "ok" }
    }

    /// The class in an `activewindow>>class,title` event line (empty class: nothing focused); `.none` for other
    /// events.
    public static func focusedApp(eventLine line: [UInt8]) -> String?? {
        let prefix = Array("activewindow>>".utf8)
        guard line.starts(with: prefix) else { return .none }
        let app = String(decoding: line.dropFirst(prefix.count).prefix { $0 != UInt8(ascii: ",") }, as: UTF8.self)
        return .some(app.isEmpty ? nil : app)
    }
}

extension String {
    /// Without the white space around it (the session's modules do not import Foundation), scalar by scalar: a
    /// Character of a space and a combining mark is not white space to a compositor that trims bytes.
    var trimmingWhiteSpace: String {
        var s = Substring(self).unicodeScalars
        while s.first?.properties.isWhitespace == true { s.removeFirst() }
        while s.last?.properties.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }
    var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    var intValue: Int64? { if case .integer(let i) = self { i } else { nil } }
}
