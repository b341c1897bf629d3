import EdgeSwipeCore
import Yams

/// Reads `libinput record` files (YAML, format version 1): every device in `devices[]`, with its evdev
/// description (`name`, `id`, `codes`, `absinfo`, `properties`), its udev properties, and the `evdev` rows of its
/// `events[]` (`[sec, usec, type, code, value]`). Other event kinds (`libinput:` rows from `--with-libinput`) are
/// skipped.
public enum LibinputRecord {
    /// The devices of a `libinput record` file; `file` names it in errors (`file:line: reason`).
    public static func parse(_ text: String, file: String) throws(RecordingError) -> [RecordedDevice] {
        if text.isEmpty { throw RecordingError(file: file, line: nil, reason: .empty) }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else { throw RecordingError(file: file, line: nil, reason: .empty) }
            root = node
        } catch let error as RecordingError {
            throw error
        } catch let error as YamlError {
            throw yamlError(error, file: file)
        } catch {
            throw RecordingError(file: file, line: nil, reason: .yaml(String(describing: error)))
        }
        let reader = Reader(file: file)
        let top = try reader.mapping(root, key: "the document")
        let version = try reader.required(top, "version", in: root)
        guard version.scalar?.string == "1" else {
            throw reader.error(at: version, .unsupportedVersion(version.scalar?.string ?? "?"))
        }
        let devicesNode = try reader.required(top, "devices", in: root)
        guard let devices = devicesNode.sequence else { throw reader.error(at: devicesNode, .wrongType(key: "devices", expected: "a list")) }
        var result: [RecordedDevice] = []
        for (index, deviceNode) in devices.enumerated() {
            result.append(try reader.device(deviceNode, index: index))
        }
        guard !result.isEmpty else { throw reader.error(at: devicesNode, .noDevice) }
        return result
    }

    private static func yamlError(_ error: YamlError, file: String) -> RecordingError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let text = (context.map { "\($0.text) " } ?? "") + problem
            return RecordingError(file: file, line: mark.line, reason: .yaml(text))
        case .reader(let problem, _, _, _):
            return RecordingError(file: file, line: nil, reason: .yaml(problem))
        default:
            return RecordingError(file: file, line: nil, reason: .yaml(String(describing: error)))
        }
    }

    private struct Reader {
        let file: String

        func error(at node: Node, _ reason: RecordingError.Reason) -> RecordingError {
            RecordingError(file: file, line: node.mark?.line, reason: reason)
        }

        func mapping(_ node: Node, key: String) throws(RecordingError) -> Node.Mapping {
            guard let m = node.mapping else { throw error(at: node, .wrongType(key: key, expected: "a mapping")) }
            return m
        }

        func required(_ mapping: Node.Mapping, _ key: String, in parent: Node) throws(RecordingError) -> Node {
            guard let value = mapping[key] else { throw error(at: parent, .missingKey(key)) }
            return value
        }

        func integer(_ node: Node, key: String) throws(RecordingError) -> Int64 {
            guard let text = node.scalar?.string else { throw error(at: node, .wrongType(key: key, expected: "an integer")) }
            let value: Int64? =
                if text.hasPrefix("0x") || text.hasPrefix("0X") { Int64(text.dropFirst(2), radix: 16) } else { Int64(text) }
            guard let value else { throw error(at: node, .badNumber(field: key, token: text)) }
            return value
        }

        func integers(_ node: Node, key: String, count: Int? = nil) throws(RecordingError) -> [Int64] {
            guard let seq = node.sequence else { throw error(at: node, .wrongType(key: key, expected: "a list of integers")) }
            if let count, seq.count < count { throw error(at: node, .truncated(expected: "\(count) values in '\(key)'")) }
            var values: [Int64] = []
            values.reserveCapacity(seq.count)
            for item in seq { values.append(try integer(item, key: key)) }
            return values
        }

        func int32(_ value: Int64, at node: Node, key: String) throws(RecordingError) -> Int32 {
            guard let v = Int32(exactly: value) else { throw error(at: node, .badNumber(field: key, token: String(value))) }
            return v
        }

        func uint16(_ value: Int64, at node: Node, key: String) throws(RecordingError) -> UInt16 {
            guard let v = UInt16(exactly: value) else { throw error(at: node, .badNumber(field: key, token: String(value))) }
            return v
        }

        func device(_ node: Node, index: Int) throws(RecordingError) -> RecordedDevice {
            let m = try mapping(node, key: "devices[\(index)]")
            let evdevNode = try required(m, "evdev", in: node)
            let evdev = try mapping(evdevNode, key: "evdev")
            let nameNode = try required(evdev, "name", in: evdevNode)
            guard let name = nameNode.scalar?.string else { throw error(at: nameNode, .wrongType(key: "name", expected: "a string")) }

            var id = InputID()
            if let idNode = evdev["id"] {
                let v = try integers(idNode, key: "id", count: 4)
                id = InputID(
                    bus: try uint16(v[0], at: idNode, key: "id"), vendor: try uint16(v[1], at: idNode, key: "id"),
                    product: try uint16(v[2], at: idNode, key: "id"), version: try uint16(v[3], at: idNode, key: "id"))
            }

            var types: Set<UInt16> = []
            var keys: Set<UInt16> = []
            if let codesNode = evdev["codes"] {
                for (typeNode, list) in try mapping(codesNode, key: "codes") {
                    let type = try uint16(try integer(typeNode, key: "codes type"), at: typeNode, key: "codes type")
                    types.insert(type)
                    if type == EvdevType.key {
                        for code in try integers(list, key: "codes") { keys.insert(try uint16(code, at: list, key: "codes")) }
                    }
                }
            }

            var absInfo: [UInt16: AbsInfo] = [:]
            if let absNode = evdev["absinfo"] {
                for (codeNode, values) in try mapping(absNode, key: "absinfo") {
                    let code = try uint16(try integer(codeNode, key: "absinfo code"), at: codeNode, key: "absinfo code")
                    let v = try integers(values, key: "absinfo", count: 5)
                    absInfo[code] = AbsInfo(
                        minimum: try int32(v[0], at: values, key: "absinfo minimum"),
                        maximum: try int32(v[1], at: values, key: "absinfo maximum"),
                        fuzz: try int32(v[2], at: values, key: "absinfo fuzz"),
                        flat: try int32(v[3], at: values, key: "absinfo flat"),
                        resolution: try int32(v[4], at: values, key: "absinfo resolution"))
                }
            }

            var properties: InputProperties = []
            if let propNode = evdev["properties"] {
                for bit in try integers(propNode, key: "properties") {
                    guard let p = InputProperties(bit: Int(clamping: bit)) else {
                        throw error(at: propNode, .badNumber(field: "properties", token: String(bit)))
                    }
                    properties.insert(p)
                }
            }

            var udev: [String: String] = [:]
            if let udevNode = m["udev"], let props = udevNode.mapping?["properties"]?.sequence {
                for item in props {
                    guard let text = item.scalar?.string else { continue }
                    let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    udev[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
                }
            }

            let description = EvdevDeviceDescription(
                name: name, id: id, properties: properties, eventTypes: types, keys: keys, absInfo: absInfo,
                udevProperties: udev)
            let events = try self.events(m["events"])
            let node = m["node"]?.scalar?.string
            return RecordedDevice(
                description: description, events: events,
                source: file + "#" + (node ?? "device \(index)"))
        }

        func events(_ node: Node?) throws(RecordingError) -> [EvdevEvent] {
            guard let node else { return [] }
            if node.scalar?.string == "" || node.null != nil { return [] }
            guard let list = node.sequence else { throw error(at: node, .wrongType(key: "events", expected: "a list")) }
            var result: [EvdevEvent] = []
            for entry in list {
                guard let rows = entry.mapping?["evdev"] else { continue }
                guard let seq = rows.sequence else { throw error(at: rows, .wrongType(key: "evdev", expected: "a list of rows")) }
                for row in seq {
                    let v = try integers(row, key: "evdev row [sec, usec, type, code, value]", count: 5)
                    guard v[0] >= 0, v[0] < 1 << 40, v[1] >= 0, v[1] < 1_000_000 else {
                        throw error(at: row, .badNumber(field: "timestamp", token: "\(v[0]), \(v[1])"))
                    }
                    result.append(EvdevEvent(
                        time: MonotonicInstant(microseconds: UInt64(v[0]) * 1_000_000 + UInt64(v[1])),
                        type: try uint16(v[2], at: row, key: "event type"), code: try uint16(v[3], at: row, key: "event code"),
                        value: try int32(v[4], at: row, key: "event value")))
                }
            }
            return result
        }
    }
}
