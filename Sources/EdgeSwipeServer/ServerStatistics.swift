/// Counters for logs and tests.
public struct ServerStatistics: Hashable, Sendable {
    /// Connections open now.
    public var connections: Int
    /// Connections accepted since start (rejected ones are not counted).
    public var accepted: Int
    /// Connections refused by the access policy, closed without a byte.
    public var rejectedPeers: Int
    /// Clients cut off because their backlog passed the bound, or because they read nothing for the stall timeout.
    public var disconnectedForBacklog: Int
    /// Progress messages superseded before a slow client read them.
    public var coalescedMessages: Int
    /// Clients turned away for want of a place: `maxClients` connected, the places left kept for clients that may
    /// control, or their user at `maxClientsPerUser`.
    public var refusedForCapacity: Int = 0
    /// Connections closed because the access policy (or its inputs) no longer admitted them.
    public var revokedConnections: Int = 0
    /// Connection handlers still in memory (open connections, and closed ones whose event-loop work has not yet
    /// finished). Once every client has gone it returns to 0; a count that keeps growing is a leak.
    public var liveConnectionHandlers: Int = 0
    /// Batches the publisher wrote straight to an idle connection's socket, whole (one hop); and those the socket
    /// took only in part, whose rest the event loop wrote. Connections open now.
    public var directWrites: Int = 0
    public var partialDirectWrites: Int = 0
    /// Connections with nothing waiting for their event loop: the next batch is written to them directly.
    public var idleConnections: Int = 0
}
