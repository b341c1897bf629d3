/// How much of the stream a client follows at once, whatever the stream says: the counterparts, for memory, of
/// ``WireRanges`` for numbers. A daemon stays far below them; a stream from whatever else listens on the socket (200,000
/// `began` that never end, a device id per line) is cut off here instead of growing the client without bound.
/// ``StreamState`` and the session's rule matcher both follow them.
public enum ClientBounds {
    /// Transitions followed at once: as many as a daemon runs (one per container, at most
    /// `StateLimits.maxContainers`). Past it the oldest is forgotten.
    public static let maxTransitions = StateLimits.maxContainers
    /// Devices (and their latest gestures) remembered at once; a daemon serves a handful.
    public static let maxDevices = 256
}
