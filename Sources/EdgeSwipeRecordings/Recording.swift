public import EdgeSwipeCore
public import EdgeSwipeInput
import EdgeSwipeSystem
import SystemPackage

/// One device of a recording: what it is, and what it sent.
public struct RecordedDevice: Hashable, Sendable {
    public var description: EvdevDeviceDescription
    /// In file order. Timestamps are the recording's own (evemu: the kernel's clock; libinput record: from 0).
    public var events: [EvdevEvent]
    /// Where it came from, for messages: the file, and for `libinput record` the device's node.
    public var source: String
    /// Set for a device of a recording read with ``Recording/stream(path:descriptionPath:)``: `events` is then
    /// empty, and a player reads them from the file as it plays.
    public var streamed: StreamedEvents?

    public init(description: EvdevDeviceDescription, events: [EvdevEvent], source: String, streamed: StreamedEvents? = nil) {
        self.description = description
        self.events = events
        self.source = source
        self.streamed = streamed
    }

    /// The time of its first event.
    public var firstEventTime: MonotonicInstant? { events.first?.time ?? streamed?.firstEventTime }
}

/// Where a streamed device's events are: which file, which of its devices, and what the first pass over it found.
public struct StreamedEvents: Hashable, Sendable {
    public var path: String
    public var format: Recording.Format
    /// The device's index among the file's devices (each `N:` starts the next; events before any belong to the
    /// `.desc`'s device, index 0).
    public var deviceIndex: Int
    public var eventCount: Int
    public var firstEventTime: MonotonicInstant?

    /// The error for a second pass that found `delivered` events where the first counted ``eventCount``: the file
    /// was changed (or replaced) between the passes.
    func changedWhilePlaying(delivered: Int) -> RecordingError {
        RecordingError(
            file: path, line: nil,
            reason: .unreadable("the file changed while it was played (\(delivered) events of device \(deviceIndex) where \(eventCount) were counted)"))
    }

    /// A reader of the events from the file, for one player.
    func openStream() -> any RecordedEventStream {
        switch format {
        case .evemu: EvemuEventStream(self)
        case .libinputRecord: LibinputRecordEventStream(self)
        }
    }
}

/// A streamed device's events, read from its file as a player asks for them (``StreamedEvents``).
protocol RecordedEventStream: AnyObject, Sendable {
    /// The next event; `nil` at the end, or after a failure.
    var current: EvdevEvent? { get }
    /// Set when the file could not be read again, or no longer matches what its first pass found.
    var failure: RecordingError? { get }
    func advance()
}

/// A recorded session of one or more devices, read from an evemu or `libinput record` file.
public struct Recording: Hashable, Sendable {
    /// The file format a recording was read from.
    public enum Format: String, Hashable, Sendable {
        case evemu
        case libinputRecord = "libinput record"
    }

    public var path: String
    public var format: Format
    /// Every device of the file, in file order.
    public var devices: [RecordedDevice]

    public init(path: String, format: Format, devices: [RecordedDevice]) {
        self.path = path
        self.format = format
        self.devices = devices
    }

    /// The earliest event of any device, which a player aligns with its start.
    public var firstEventTime: MonotonicInstant? {
        devices.compactMap(\.firstEventTime).min()
    }

    /// Reads a recording file.
    ///
    /// - Parameters:
    ///   - descriptionPath: the `.desc` of an events-only evemu file (`--desc FILE`). When `nil` and the file has
    ///     no inline description, the `.desc` in the same folder whose name (without `.desc`) is the longest
    ///     prefix of the recording's name is used, which is how evemu-devices is laid out.
    public static func load(path: String, descriptionPath: String? = nil) throws(RecordingError) -> Recording {
        // A `libinput record` file is parsed as it is read: its events are kept, its text never is.
        if looksLikeLibinputRecord(try head(of: path), path: path) {
            return Recording(path: path, format: .libinputRecord, devices: try LibinputRecord.load(path: path))
        }
        let text = try readText(path)
        return try parse(text, path: path, descriptionPath: descriptionPath)
    }

    /// Parses recording text; `path` names it in errors and locates a `.desc` when one is needed.
    public static func parse(_ text: String, path: String, descriptionPath: String? = nil) throws(RecordingError) -> Recording {
        if looksLikeLibinputRecord(text, path: path) {
            return Recording(path: path, format: .libinputRecord, devices: try LibinputRecord.parse(text, file: path))
        }
        let devices = try Evemu.parse(text, file: path) { () throws(RecordingError) -> EvdevDeviceDescription? in
            guard let desc = descriptionPath ?? findDescription(forRecording: path) else { return nil }
            return try Evemu.parseDescription(try readText(desc), file: desc)
        }
        return Recording(path: path, format: .evemu, devices: devices)
    }

    /// The `.desc` beside `path` whose name without `.desc` is the longest prefix of the recording's file name.
    /// It is named by its absolute path.
    public static func findDescription(forRecording path: String) -> String? {
        let absolute = FilePath(path).absolute
        let folder = absolute.removingLastComponent()
        let name = absolute.lastComponent?.string ?? ""
        guard let entries = try? folder.directoryEntries() else { return nil }
        var best: (file: String, stem: Substring)? = nil
        for file in entries where file.hasSuffix(".desc") && file != name {
            let stem = file.dropLast(".desc".count)
            guard !stem.isEmpty, name.hasPrefix(stem) else { continue }
            // The longest prefix wins; among equal lengths the first name in order, so the choice is stable.
            if let current = best, current.stem.count > stem.count || (current.stem.count == stem.count && current.file < file) {
                continue
            }
            best = (file, stem)
        }
        return best.map { folder.appending($0.file).string }
    }

    static func looksLikeLibinputRecord(_ text: String, path: String) -> Bool {
        if path.hasSuffix(".yaml") || path.hasSuffix(".yml") { return true }
        for line in text.prefix(4096).split(whereSeparator: \.isNewline).prefix(20) {
            let trimmed = line.drop(while: { $0 == " " })
            if trimmed.hasPrefix("# libinput record") || trimmed.hasPrefix("version:") || trimmed.hasPrefix("devices:") {
                return true
            }
            if trimmed.hasPrefix("N:") || trimmed.hasPrefix("E:") || trimmed.hasPrefix("# EVEMU") { return false }
        }
        return false
    }

    /// The whole file as UTF-8 (invalid bytes replaced: device names are the only free text), or an error with
    /// the system's reason.
    static func readText(_ path: String) throws(RecordingError) -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// The file's bytes, from the start until `enough` says so (after each chunk read) or the file ends.
    static func readBytes(_ path: String, until enough: ([UInt8]) -> Bool = { _ in false }) throws(RecordingError) -> [UInt8] {
        do {
            let file = try FileDescriptor.open(atPath: path, .readOnly, options: [.closeOnExec])
            defer { try? file.close() }
            return try file.readToEnd(until: enough)
        } catch {
            throw RecordingError(file: path, line: nil, reason: .unreadable(error.description))
        }
    }
}
