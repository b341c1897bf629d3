/// A request read from a line, with the `id` to echo.
public struct RequestEnvelope: Hashable, Sendable {
    public var id: RequestID?
    public var request: Request
    /// The 1-based line on the connection.
    public var line: Int

    public init(id: RequestID?, request: Request, line: Int) {
        self.id = id
        self.request = request
        self.line = line
    }
}

/// Reads client requests. Every failure is a ``RequestError`` that names the line, the `id` and op when they
/// could be read, the field, and what was wrong; unknown fields are ignored so that newer clients can add
/// optional ones.
public enum RequestDecoder {
    /// Every op of protocol v1, in the order errors list them.
    public static let ops = [
        "subscribe", "ping", "status", "devices", "push", "pop", "pop-to-root", "present", "dismiss", "select-tab",
        "show", "set-rotation",
    ]

    /// Reads one request line (without its terminator); `line` is its 1-based number on the connection, for errors.
    public static func decode(_ bytes: [UInt8], line: Int) throws(RequestError) -> RequestEnvelope {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw RequestError(code: .malformedJSON, reason: "not valid JSON: \(error)", line: line)
        }
        guard case .object(let object) = value else {
            throw RequestError(code: .notAnObject, reason: "a request must be a JSON object, got \(value.kindName)", line: line)
        }
        var id: RequestID? = nil
        switch object["id"] {
        case nil, .null: break
        case .integer(let i): id = .int(i)
        case .string(let s): id = .string(s)
        case .some(let other):
            throw RequestError(
                code: .invalidField, reason: "field \"id\" must be a string or an integer, got \(other.kindName)",
                line: line)
        }
        guard let opValue = object["op"] else {
            throw RequestError(code: .missingOp, reason: "field \"op\" is missing (expected one of \(opList))", id: id, line: line)
        }
        guard case .string(let op) = opValue else {
            throw RequestError(
                code: .invalidField, reason: "field \"op\" must be a string, got \(opValue.kindName)", id: id, line: line)
        }
        let fields = Fields(object: object)
        do {
            let request = try decodeRequest(op: op, fields)
            return RequestEnvelope(id: id, request: request, line: line)
        } catch {
            throw error.answering(id: id, op: op, line: line)
        }
    }

    static var opList: String { ops.joined(separator: ", ") }

    private static func decodeRequest(op: String, _ f: Fields) throws(RequestError) -> Request {
        switch op {
        case "subscribe": return .subscribe(try subscription(f))
        case "ping": return .ping
        case "status": return .status
        case "devices": return .devices
        case "push": return try control(f, .push(scene: try f.name("scene")))
        case "pop": return try control(f, .pop)
        case "pop-to-root": return try control(f, .popToRoot)
        case "dismiss": return try control(f, .dismiss)
        case "show": return try control(f, .show(child: try f.name("child")))
        case "present":
            let styleName = try f.optionalString("style") ?? PresentationStyle.fullScreen.rawValue
            guard let style = PresentationStyle(rawValue: styleName) else {
                throw RequestError(
                    code: .invalidField,
                    reason: "field \"style\" must be one of \(PresentationStyle.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(styleName)\"")
            }
            return try control(f, .present(scene: try f.name("scene"), style: style, frame: try f.optionalRect("frame")))
        case "select-tab":
            let index = try f.optionalInt("index")
            let scene = try f.optionalName("scene")
            switch (index, scene) {
            case (let i?, nil):
                guard i >= 0 else { throw RequestError(code: .invalidField, reason: "field \"index\" must not be negative (got \(i))") }
                return try control(f, .selectTab(.index(i)))
            case (nil, let s?): return try control(f, .selectTab(.scene(s)))
            case (nil, nil):
                throw RequestError(code: .missingField, reason: "field \"index\" (an integer) or \"scene\" (a string) is required")
            case (.some, .some):
                throw RequestError(code: .invalidField, reason: "give either \"index\" or \"scene\", not both")
            }
        case "set-rotation": return .daemon(.setRotation(try rotation(f)))
        default:
            throw RequestError(code: .unknownOp, reason: "unknown op \"\(op)\" (expected one of \(opList))")
        }
    }

    private static func control(_ f: Fields, _ action: ControlRequest.Action) throws(RequestError) -> Request {
        .control(ControlRequest(container: try f.name("container"), action: action, animated: try f.optionalBool("animated") ?? true))
    }

    private static func rotation(_ f: Fields) throws(RequestError) -> RotationRequest {
        let setting: RotationSetting
        switch f.object["rotation"] {
        case nil, .null:
            throw RequestError(code: .missingField, reason: "field \"rotation\" is missing (expected 0, 90, 180, 270 or \"auto\")")
        case .integer(let degrees):
            guard let r = Rotation(rawValue: Int(clamping: degrees)) else {
                throw RequestError(code: .invalidField, reason: "field \"rotation\" must be 0, 90, 180, 270 or \"auto\", got \(degrees)")
            }
            setting = .fixed(r)
        case .string("auto"):
            setting = .automatic
        case .some(let other):
            let got = if case .string(let s) = other { "\"\(s)\"" } else { other.kindName }
            throw RequestError(code: .invalidField, reason: "field \"rotation\" must be 0, 90, 180, 270 or \"auto\", got \(got)")
        }
        let device = try f.optionalInt("device")
        let output = try f.optionalString("output")
        switch (device, output) {
        case (nil, nil): return RotationRequest(setting: setting, target: .allTouchscreens)
        case (let id?, nil):
            guard id >= 0 else { throw RequestError(code: .invalidField, reason: "field \"device\" must not be negative (got \(id))") }
            return RotationRequest(setting: setting, target: .device(DeviceID(UInt32(id))))
        case (nil, let name?): return RotationRequest(setting: setting, target: .output(name))
        case (.some, .some): throw RequestError(code: .invalidField, reason: "give either \"device\" or \"output\", not both")
        }
    }

    private static func subscription(_ f: Fields) throws(RequestError) -> Subscription {
        var topics = TopicSet.all
        if let value = f.object["topics"] {
            guard case .array(let items) = value else {
                throw RequestError(code: .invalidField, reason: "field \"topics\" must be an array of strings, got \(value.kindName)")
            }
            var names: [Topic] = []
            for (i, item) in items.enumerated() {
                guard case .string(let name) = item, let topic = Topic(rawValue: name) else {
                    let got = if case .string(let s) = item { "\"\(s)\"" } else { item.kindName }
                    throw RequestError(
                        code: .invalidField,
                        reason: "topics[\(i)] must be one of \(Topic.allCases.map(\.rawValue).joined(separator: ", ")), got \(got)")
                }
                names.append(topic)
            }
            topics = TopicSet(names)
        }
        var ticks = TickRate.every
        switch f.object["tick_hz"] {
        case nil: break
        case .null: ticks = .none
        case .some(let value):
            guard let hz = value.doubleValue, hz >= 0 else {
                let got = value.doubleValue.map { "\($0)" } ?? value.kindName
                throw RequestError(code: .invalidField, reason: "field \"tick_hz\" must be a number >= 0 or null, got \(got)")
            }
            ticks = hz == 0 ? .none : .hz(hz)
        }
        return Subscription(topics: topics, ticks: ticks)
    }
}

/// Typed access to a request's fields, failing with `missing-field` or `invalid-field`.
private struct Fields {
    let object: [String: JSONValue]

    func string(_ key: String) throws(RequestError) -> String {
        guard let s = try optionalString(key) else {
            throw RequestError(code: .missingField, reason: "field \"\(key)\" is missing (expected a string)")
        }
        return s
    }

    func optionalString(_ key: String) throws(RequestError) -> String? {
        switch object[key] {
        case nil, .null: return nil
        case .string(let s):
            guard !s.isEmpty else { throw RequestError(code: .invalidField, reason: "field \"\(key)\" must not be empty") }
            return s
        case .some(let other): throw invalid(key, "a string", other)
        }
    }

    /// A scene, tab, child or container name: a string within ``StateLimits``' rules for names.
    func name(_ key: String) throws(RequestError) -> String {
        let s = try string(key)
        if let problem = StateLimits.nameProblem(s) {
            throw RequestError(code: .invalidField, reason: "field \"\(key)\" \(problem)")
        }
        return s
    }

    func optionalName(_ key: String) throws(RequestError) -> String? {
        guard object[key] != nil, object[key] != .null else { return nil }
        return try name(key)
    }

    func optionalInt(_ key: String) throws(RequestError) -> Int? {
        switch object[key] {
        case nil, .null: return nil
        case .integer(let i) where i >= Int64(Int32.min) && i <= Int64(Int32.max): return Int(i)
        case .some(let other): throw invalid(key, "an integer", other)
        }
    }

    func optionalBool(_ key: String) throws(RequestError) -> Bool? {
        switch object[key] {
        case nil, .null: return nil
        case .bool(let b): return b
        case .some(let other): throw invalid(key, "a boolean", other)
        }
    }

    func optionalRect(_ key: String) throws(RequestError) -> NormalizedRect? {
        switch object[key] {
        case nil, .null: return nil
        case .object(let o):
            var values: [Double] = []
            for name in ["x", "y", "width", "height"] {
                guard let v = o[name]?.doubleValue, v.isFinite else {
                    throw RequestError(code: .invalidField, reason: "field \"\(key).\(name)\" must be a number")
                }
                values.append(v)
            }
            let rect = NormalizedRect(x: values[0], y: values[1], width: values[2], height: values[3])
            if let problem = rect.validationProblem {
                throw RequestError(code: .invalidField, reason: "field \"\(key)\": \(problem)")
            }
            return rect
        case .some(let other): throw invalid(key, "an object {x, y, width, height}", other)
        }
    }

    private func invalid(_ key: String, _ expected: String, _ got: JSONValue) -> RequestError {
        RequestError(code: .invalidField, reason: "field \"\(key)\" must be \(expected), got \(got.kindName)")
    }
}
