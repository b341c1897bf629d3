import EdgeSwipeCore
public import EdgeSwipeInput

/// Reads and writes evemu recordings (`evemu-record`, format 1.x).
///
/// A device description is `N:` (name), `I:` (input id), `P:` (property bytes), `B:` (capability bytes per
/// type), `A:` (absinfo), `L:`/`S:` (LED and switch state, ignored); events are `E: sec.usec type code value`, with
/// type and code in hex and the value in decimal. A file may hold the description inline, or events only with the
/// description in a separate `.desc` file. Each `N:` starts a new device; events belong to the latest one.
public enum Evemu {
    /// Parses evemu text.
    ///
    /// - Parameters:
    ///   - file: names the text in errors.
    ///   - externalDescription: called once, on the first event that comes before any inline description, to
    ///     describe the device from a `.desc` file; returning `nil` makes that event an error.
    public static func parse(
        _ text: String, file: String,
        externalDescription: () throws(RecordingError) -> EvdevDeviceDescription? = { () throws(RecordingError) in nil }
    ) throws(RecordingError) -> [RecordedDevice] {
        var parser = Parser(file: file, descriptionOnly: false)
        try parser.run(text, externalDescription: externalDescription)
        guard !parser.devices.isEmpty else { throw RecordingError(file: file, line: nil, reason: .noDevice) }
        return parser.devices.map { $0.recorded(file: file) }
    }

    /// Parses a `.desc` file: one device description and no events.
    public static func parseDescription(_ text: String, file: String) throws(RecordingError) -> EvdevDeviceDescription {
        var parser = Parser(file: file, descriptionOnly: true)
        try parser.run(text, externalDescription: { () throws(RecordingError) in nil })
        guard let first = parser.devices.first else { throw RecordingError(file: file, line: nil, reason: .noDevice) }
        return first.description
    }

    // MARK: - Writing

    /// The evemu text for one device and its events, in `evemu-record`'s layout, so that `evemu-device` and
    /// `evemu-play` accept it.
    public static func write(_ device: EvdevDeviceDescription, events: [EvdevEvent]) -> String {
        var out = "# EVEMU 1.3\n"
        out += "# Input device name: \"\(device.name)\"\n"
        out += "# Written by EdgeSwipe\n"
        out += "N: \(device.name)\n"
        out += "I: \(hex4(device.id.bus)) \(hex4(device.id.vendor)) \(hex4(device.id.product)) \(hex4(device.id.version))\n"
        var propertyBytes: [UInt8] = []
        for byte in 0..<4 { propertyBytes.append(UInt8(truncatingIfNeeded: device.properties.rawValue >> (8 * UInt32(byte)))) }
        propertyBytes += [0, 0, 0, 0]
        out += "P: " + propertyBytes.map(hex2).joined(separator: " ") + "\n"
        let abs = Set(device.absInfo.keys)
        for type in device.eventTypes.union([EvdevType.syn]).sorted() {
            let codes: Set<UInt16> =
                switch type {
                // EVIOCGBIT(0) is the bitmask of the event types themselves.
                case EvdevType.syn: device.eventTypes.union([EvdevType.syn])
                case EvdevType.key: device.keys
                case EvdevType.abs: abs
                default: []
                }
            for line in bitmaskLines(codes) { out += "B: \(hex2(UInt8(truncatingIfNeeded: type))) \(line)\n" }
        }
        for code in device.absInfo.keys.sorted() {
            guard let a = device.absInfo[code] else { continue }
            // evemu's `%02x`: at least two digits, and all of them (the parser reads codes up to 0xffff).
            out += "A: \(pad(String(code, radix: 16), 2)) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
        }
        for e in events {
            let seconds = e.time.microseconds / 1_000_000
            let micros = String(e.time.microseconds % 1_000_000)
            let value = e.value < 0 ? "-" + pad(String(-Int64(e.value)), 3) : pad(String(e.value), 4)
            out += "E: \(seconds).\(pad(micros, 6)) \(hex4(e.type)) \(hex4(e.code)) \(value)\t# "
                + "\(EvdevNames.type(e.type)) / \(EvdevNames.code(e.code, type: e.type))\n"
        }
        return out
    }

    private static func pad(_ digits: String, _ width: Int) -> String {
        String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    private static func hex2(_ v: UInt8) -> String { pad(String(v, radix: 16), 2) }
    private static func hex4(_ v: UInt16) -> String { pad(String(v, radix: 16), 4) }

    /// The codes as evemu's `B:` rows: 8 bytes a row, as many rows as the largest code needs.
    private static func bitmaskLines(_ codes: Set<UInt16>) -> [String] {
        guard let top = codes.max() else { return [] }
        let rows = Int(top) / 64 + 1
        var bytes = [UInt8](repeating: 0, count: rows * 8)
        for code in codes { bytes[Int(code) / 8] |= 1 << UInt8(code % 8) }
        return (0..<rows).map { row in bytes[(row * 8)..<(row * 8 + 8)].map(hex2).joined(separator: " ") }
    }

    // MARK: - Parsing

    struct DeviceBuilder {
        var name: String
        var id = InputID()
        var propertyBytes: [UInt8] = []
        var bitmasks: [UInt16: [UInt8]] = [:]
        var absInfo: [UInt16: AbsInfo] = [:]
        var events: [EvdevEvent] = []
        /// Counted when events are not kept (a streamed recording's first pass).
        var eventCount = 0
        var firstEventTime: MonotonicInstant?
        /// A description read from a `.desc`, used as is.
        var external: EvdevDeviceDescription?

        var description: EvdevDeviceDescription {
            if let external { return external }
            var properties: UInt32 = 0
            for (i, byte) in propertyBytes.prefix(4).enumerated() { properties |= UInt32(byte) << (8 * UInt32(i)) }
            return EvdevDeviceDescription(
                name: name, id: id, properties: InputProperties(rawValue: properties),
                eventTypes: codes(of: EvdevType.syn), keys: codes(of: EvdevType.key), absInfo: absInfo)
        }

        /// `B: 00` is the bitmask of event types; `B: 01` of keys, and so on.
        private func codes(of type: UInt16) -> Set<UInt16> {
            var result: Set<UInt16> = []
            for (i, byte) in (bitmasks[type] ?? []).enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (1 << UInt8(bit)) != 0 { result.insert(UInt16(i * 8 + bit)) }
            }
            return result
        }

        func recorded(file: String) -> RecordedDevice {
            RecordedDevice(description: description, events: events, source: file)
        }
    }

    struct Parser {
        let file: String
        let descriptionOnly: Bool
        /// Whether events are kept in their device's builder, or only counted (a streamed recording's first pass,
        /// which checks every line without holding the events).
        var keepsEvents = true
        var devices: [DeviceBuilder] = []
        var lineNumber = 0
        var askedForExternal = false

        init(file: String, descriptionOnly: Bool) {
            self.file = file
            self.descriptionOnly = descriptionOnly
        }

        func error(_ reason: RecordingError.Reason) -> RecordingError {
            RecordingError(file: file, line: lineNumber, reason: reason)
        }

        mutating func run(
            _ text: String, externalDescription: () throws(RecordingError) -> EvdevDeviceDescription?
        ) throws(RecordingError) {
            if text.isEmpty { throw RecordingError(file: file, line: nil, reason: .empty) }
            // `\r\n` is one Character in Swift, so lines are split on any newline, not on "\n".
            for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
                lineNumber += 1
                try parseLine(line, externalDescription: externalDescription)
            }
        }

        mutating func parseLine(
            _ line: Substring, externalDescription: () throws(RecordingError) -> EvdevDeviceDescription?
        ) throws(RecordingError) {
            guard let first = line.first(where: { $0 != " " && $0 != "\t" }) else { return }
            if first == "#" {
                try checkVersion(line)
                return
            }
            guard line.count >= 2, line.dropFirst().first == ":" else {
                throw error(.unknownLine(prefix: String(line.prefix(12))))
            }
            let prefix = line.first ?? " "
            let body = line.dropFirst(2)
            if prefix == "N" {
                let name = body.trimmingSpaces
                devices.append(DeviceBuilder(name: String(name)))
                return
            }
            // Everything after '#' on a data line is evemu's human-readable comment.
            let data = body.firstIndex(of: "#").map { body[..<$0] } ?? body
            let fields = data.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch prefix {
            case "E":
                if descriptionOnly { throw error(.eventsInDescriptionFile) }
                let event = try parseEvent(fields)
                if devices.isEmpty {
                    if !askedForExternal, let external = try externalDescription() {
                        var builder = DeviceBuilder(name: external.name)
                        builder.external = external
                        devices.append(builder)
                    }
                    askedForExternal = true
                }
                guard !devices.isEmpty else {
                    throw error(.eventBeforeDescription(hint: "no inline 'N:' description and no .desc file"))
                }
                if keepsEvents {
                    devices[devices.count - 1].events.append(event)
                } else {
                    devices[devices.count - 1].eventCount += 1
                    if devices[devices.count - 1].firstEventTime == nil { devices[devices.count - 1].firstEventTime = event.time }
                }
            case "I":
                try requireDevice("I:")
                guard fields.count >= 4 else { throw error(.truncated(expected: "I: <bus> <vendor> <product> <version>")) }
                let names = ["bus", "vendor", "product", "version"]
                var values: [UInt16] = []
                for (i, token) in fields.prefix(4).enumerated() { values.append(try hex16(token, field: "input id \(names[i])")) }
                devices[devices.count - 1].id = InputID(bus: values[0], vendor: values[1], product: values[2], version: values[3])
            case "P":
                try requireDevice("P:")
                for token in fields { devices[devices.count - 1].propertyBytes.append(try hex8(token, field: "property byte")) }
            case "B":
                try requireDevice("B:")
                guard let typeToken = fields.first else { throw error(.truncated(expected: "B: <type> <bytes>")) }
                let type = UInt16(try hex8(typeToken, field: "bitmask type"))
                for token in fields.dropFirst() {
                    devices[devices.count - 1].bitmasks[type, default: []].append(try hex8(token, field: "bitmask byte"))
                }
            case "A":
                try requireDevice("A:")
                guard fields.count >= 5 else { throw error(.truncated(expected: "A: <code> <min> <max> <fuzz> <flat> [<resolution>]")) }
                let code = try hex16(fields[0], field: "axis code")
                let names = ["minimum", "maximum", "fuzz", "flat", "resolution"]
                var values: [Int32] = []
                for (i, token) in fields.dropFirst().prefix(5).enumerated() { values.append(try int32(token, field: "axis \(names[i])")) }
                devices[devices.count - 1].absInfo[code] = AbsInfo(
                    minimum: values[0], maximum: values[1], fuzz: values[2], flat: values[3],
                    resolution: values.count > 4 ? values[4] : 0)
            case "L", "S":
                try requireDevice("\(prefix):")
            default:
                throw error(.unknownLine(prefix: "\(prefix):"))
            }
        }

        private func requireDevice(_ prefix: String) throws(RecordingError) {
            if devices.isEmpty { throw error(.descriptionBeforeName(prefix: prefix)) }
        }

        private func checkVersion(_ line: Substring) throws(RecordingError) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 3, words[0] == "#", words[1] == "EVEMU" else { return }
            if !words[2].hasPrefix("1.") { throw error(.unsupportedVersion(String(words[2]))) }
        }

        /// For a recording already checked line by line: the event on `line`, with the index of the device it belongs
        /// to (the latest `N:`; the first device is the `.desc`'s when events come before any), or `nil` for a line
        /// that is not an event. Counts `N:` lines in `devicesSeen`.
        mutating func event(onLine line: Substring, devicesSeen: inout Int) throws(RecordingError) -> (device: Int, event: EvdevEvent)? {
            lineNumber += 1
            guard let first = line.first(where: { $0 != " " && $0 != "\t" }), first != "#" else { return nil }
            guard line.count >= 2, line.dropFirst().first == ":" else { return nil }
            switch line.first {
            case "N":
                devicesSeen += 1
                return nil
            case "E":
                let body = line.dropFirst(2)
                let data = body.firstIndex(of: "#").map { body[..<$0] } ?? body
                let event = try parseEvent(data.split(whereSeparator: { $0 == " " || $0 == "\t" }))
                if devicesSeen == 0 { devicesSeen = 1 }
                return (devicesSeen - 1, event)
            default:
                return nil
            }
        }

        private func parseEvent(_ fields: [Substring]) throws(RecordingError) -> EvdevEvent {
            let expected = ["<sec.usec>", "<type>", "<code>", "<value>"]
            guard fields.count >= 4 else {
                throw error(.truncated(expected: "E: <sec.usec> <type> <code> <value>, missing "
                    + expected[fields.count...].joined(separator: " ")))
            }
            let time = try timestamp(fields[0])
            let type = try hex16(fields[1], field: "event type")
            let code = try hex16(fields[2], field: "event code")
            let value = try int32(fields[3], field: "event value")
            return EvdevEvent(time: time, type: type, code: code, value: value)
        }

        /// `sec.usec`; evemu writes six digits of microseconds, others are read as a decimal fraction.
        private func timestamp(_ token: Substring) throws(RecordingError) -> MonotonicInstant {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count <= 2, let secondsPart = parts.first, !secondsPart.isEmpty,
                secondsPart.allSatisfy(\.isASCIIDigit), let seconds = UInt64(secondsPart), seconds < 1 << 40
            else { throw error(.badNumber(field: "timestamp", token: String(token))) }
            var micros: UInt64 = 0
            if parts.count == 2 {
                let fraction = parts[1]
                guard !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else {
                    throw error(.badNumber(field: "timestamp", token: String(token)))
                }
                let six = String(fraction.prefix(6)) + String(repeating: "0", count: max(0, 6 - fraction.count))
                micros = UInt64(six) ?? 0
            }
            return MonotonicInstant(microseconds: seconds * 1_000_000 + micros)
        }

        private func hex16(_ token: Substring, field: String) throws(RecordingError) -> UInt16 {
            let digits = token.hasPrefix("0x") ? token.dropFirst(2) : token
            guard !digits.isEmpty, let v = UInt16(digits, radix: 16) else { throw error(.badHex(field: field, token: String(token))) }
            return v
        }

        private func hex8(_ token: Substring, field: String) throws(RecordingError) -> UInt8 {
            guard let v = UInt8(token, radix: 16) else { throw error(.badHex(field: field, token: String(token))) }
            return v
        }

        private func int32(_ token: Substring, field: String) throws(RecordingError) -> Int32 {
            guard let v = Int32(token) else { throw error(.badNumber(field: field, token: String(token))) }
            return v
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
