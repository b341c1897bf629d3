extension ServerMessage {
    /// Decodes one server line (with or without its newline), following each message's description: the same one
    /// the server writes with. Fields this client does not know are ignored; a `type` it does not know is
    /// ``ServerMessage/unknown(_:)``.
    public init(line: [UInt8]) throws(MessageDecodingError) {
        let value: JSONValue
        do {
            // A trailing newline is whitespace to the parser.
            value = try JSONValue.parse(line)
        } catch {
            throw MessageDecodingError(reason: "not valid JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw MessageDecodingError(reason: "a message must be a JSON object, got \(value.kindName)")
        }
        do throws(WireReadError) {
            guard let typeValue = members["type"] else { throw WireReadError(problem: "field \"type\" is missing") }
            let type = try String(wire: typeValue)
            switch MessageType(rawValue: type) {
            case .hello: self = .hello(try HelloMessage(members: members))
            case .gesture: self = .gesture(try GestureMessage(members: members))
            case .transition: self = .transition(try TransitionMessage(members: members))
            case .lifecycle: self = .lifecycle(try LifecycleMessage(members: members))
            case .presentation: self = .presentation(try PresentationMessage(members: members))
            case .interaction: self = .interaction(try InteractionMessage(members: members))
            case .state: self = .state(try StateMessage(members: members))
            case .device: self = .device(try DeviceMessage(members: members))
            case .config: self = .config(try ConfigMessage(members: members))
            case .error: self = .error(try ErrorMessage(members: members))
            case .reply: self = .reply(try ReplyMessage(members: members))
            case .goodbye: self = .goodbye(try GoodbyeMessage(members: members))
            case nil: self = .unknown(try UnknownMessage(members: members))
            }
        } catch {
            throw MessageDecodingError(reason: error.description)
        }
    }
}

/// A server line that does not decode into ``ServerMessage``: not JSON, or a field missing or of the wrong type
/// (`at devices[0].size_mm: field "width" is missing`).
public struct MessageDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
