public import EdgeSwipeCore
public import EdgeSwipeBus
import EdgeSwipeSystem
public import Logging

// What the rest of the system knows about the seat, read from the system bus: who is active on it (logind), that
// the machine is about to sleep (logind), and which way it is held (iio-sensor-proxy). It hands the daemon Swift
// values only; everything D-Bus stays here.

/// Which way iio-sensor-proxy's accelerometer says the device is held (`AccelerometerOrientation`), relative to
/// its natural orientation: the edge of the device that points up.
public enum AccelerometerOrientation: String, Hashable, Sendable, CaseIterable {
    /// No reading yet, or the device lies flat.
    case undefined
    case normal
    /// Upside down.
    case bottomUp = "bottom-up"
    /// Its left edge points up: turned a quarter clockwise, as the user looks at it.
    case leftUp = "left-up"
    /// Its right edge points up: turned a quarter counter-clockwise.
    case rightUp = "right-up"

    /// The mounting that keeps "left" where the user sees it: how far the device is turned clockwise. A device
    /// turned clockwise shows its picture turned counter-clockwise by as much (a Wayland output transform of the
    /// same number: mutter maps `left-up` to `META_MONITOR_TRANSFORM_90` in `meta-monitor-transform.c`, and gives
    /// touchscreens the matrix `{0, -1, 1, 1, 0, 0}` for it, which is ``Rotation/degrees90``). So with `left-up`
    /// the device's physical left edge is the top edge the user sees, and a swipe from it is a `top` swipe.
    /// `nil` for ``undefined``: keep what is in force.
    public var rotation: Rotation? {
        switch self {
        case .undefined: nil
        case .normal: .degrees0
        case .leftUp: .degrees90
        case .bottomUp: .degrees180
        case .rightUp: .degrees270
        }
    }
}

/// Watches the seat through the system bus, on the thread that polls it.
///
/// - logind (`org.freedesktop.login1`): the seat's `ActiveSession` (and that session's `User`), followed through
///   `PropertiesChanged` on the seat object; `PrepareForSleep` on the manager.
/// - iio-sensor-proxy (`net.hadess.SensorProxy`): `ClaimAccelerometer`, then `AccelerometerOrientation` through
///   `PropertiesChanged`.
/// - `NameOwnerChanged` for both: a service that leaves is logged once, one that comes back is asked again.
///
/// Signals are only believed from the unique name that owns the service now (anyone on the system bus may send a
/// signal addressed to us), and every value is checked against the type the interface documents: a wrong one is
/// logged and ignored, never a crash.
///
/// Poll ``pollDescriptor`` for ``pollEvents`` (with ``deadline`` as a timeout), then call ``process()``. Not
/// `Sendable`: it belongs to the thread that polls it.
public final class SeatWatcher {
    public struct Options: Hashable, Sendable {
        /// The logind seat whose active session counts (`[daemon] seat`).
        public var seat: String
        /// Follow the seat's active session (an `active-session` access grant needs it).
        public var followSessions: Bool
        /// Follow iio-sensor-proxy's accelerometer (a device with `rotation = "auto"` needs it).
        public var followAccelerometer: Bool
        /// The bus to use instead of the system bus (`unix:path=…`): tests run their own.
        public var busAddress: String?

        public init(seat: String, followSessions: Bool, followAccelerometer: Bool, busAddress: String? = nil) {
            self.seat = seat
            self.followSessions = followSessions
            self.followAccelerometer = followAccelerometer
            self.busAddress = busAddress
        }
    }

    /// The user of the session active on the seat.
    public struct ActiveSession: Hashable, Sendable, CustomStringConvertible {
        /// logind's session id (`2`, `c1`).
        public var id: String
        public var uid: UInt32
        public init(id: String, uid: UInt32) {
            self.id = id
            self.uid = uid
        }
        public var description: String { "session \(id) (uid \(uid))" }
    }

    /// Something the daemon acts on, in the order the bus told it.
    public enum Change: Hashable, Sendable {
        /// The seat's active session now; `nil`: none is, or logind cannot say (it left the bus).
        case activeSession(ActiveSession?)
        /// logind's `PrepareForSleep`: true just before the machine sleeps, false once it has woken (or the sleep
        /// failed).
        case preparingForSleep(Bool)
        /// The accelerometer's reading changed.
        case orientation(AccelerometerOrientation)
    }

    static let logind = "org.freedesktop.login1"
    static let sensorProxy = "net.hadess.SensorProxy"
    static let sensorPath = "/net/hadess/SensorProxy"
    static let busDriver = "org.freedesktop.DBus"
    /// A local service answers in well under a millisecond; past this it is hung, and the input thread, which
    /// waits for a session's user (see ``process()``), must not hang with it.
    static let callTimeout = Microseconds(500_000)

    private let bus: SDBus
    private let options: Options
    private let logger: Logger
    private let seatPath: String
    private var matches: [BusSlot] = []
    /// Calls in flight (iio-sensor-proxy's), kept alive until they are answered, and those answered during this
    /// ``process()`` (freed after it: never inside their own handler).
    private var calls: [ObjectIdentifier: BusSlot] = [:]
    private var answered: [ObjectIdentifier] = []
    /// Senders of forged signals already reported (a few: a peer sending them in a loop must not flood the log).
    private var reportedForgers: Set<String> = []
    private var changes: [Change] = []
    /// The unique names owning each service now: signals from anyone else are ignored.
    private var owners: [String: String] = [:]
    /// Sessions' users, by session object path: a session never changes user, so a switch back to one seen
    /// before needs no call.
    private var sessionUIDs: [String: UInt32] = [:]
    /// What the last seat signal asked for, handled between two messages (see ``process()``).
    private var sessionWork: SessionWork?
    /// A resolution that failed while logind owns its name (a call that timed out on a loaded machine), asked
    /// again at `at`: until then nobody counts as the active session (closed, never open, by default).
    private var sessionRetry: (work: SessionWork, at: MonotonicInstant, delay: Microseconds)?
    /// Set by a failed read of the seat or a session while handling one piece of session work.
    private var sessionReadFailed = false
    /// The first wait before asking logind again, doubled on each failure up to ``sessionRetryMaximum``.
    static let sessionRetryFirst = Microseconds(250_000)
    static let sessionRetryMaximum = Microseconds(8_000_000)
    private var followAccelerometer: Bool
    private var accelerometerClaimed = false
    /// The last orientation reported, so that a repeated value is not a change.
    private var orientation: AccelerometerOrientation?
    /// What was last logged about each service's presence, so that each state is said once.
    private var saidAbsent: Set<String> = []

    private enum SessionWork {
        /// The signal carried the new value.
        case known(id: String, path: String)
        /// The signal only said it changed (`invalidated_properties`), or carried something unreadable.
        case fetch
        /// logind left the bus.
        case vanished
    }

    /// The session active on the seat (when ``Options/followSessions``): read at start-up, then kept current by
    /// ``process()``.
    public private(set) var activeSession: ActiveSession?

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket), subscribes, and reads the
    /// seat's active session (waiting for logind's answer, so that the first client is judged by it).
    public init(options: Options, logger: Logger) throws(BusError) {
        self.options = options
        self.logger = logger
        self.followAccelerometer = options.followAccelerometer
        if let address = options.busAddress {
            bus = try SDBus.connect(address: address)
        } else {
            bus = try SDBus.system()
        }
        seatPath = SDBus.objectPath(prefix: "/org/freedesktop/login1/seat", id: options.seat)
            ?? "/org/freedesktop/login1/seat/\(options.seat)"
        try subscribe()
        for name in [Self.logind, Self.sensorProxy] { refreshOwner(of: name) }
        // Through the same path as a seat signal, so that a slow first answer is asked again too.
        if options.followSessions { handle(.fetch) }
        if followAccelerometer { claimAccelerometer() }
        changes.removeAll()
    }

    public var pollDescriptor: Int32 { bus.fd }
    /// `POLLIN`, and `POLLOUT` while something waits to be written.
    public var pollEvents: Int16 { bus.events }
    /// When ``process()`` must run even if nothing is readable (a call timing out).
    public var deadline: MonotonicInstant? {
        switch (bus.deadline, sessionRetry?.at) {
        case (let a?, let b?): min(a, b)
        case (let a?, nil): a
        case (nil, let b?): b
        case (nil, nil): nil
        }
    }

    /// Reads and handles everything pending, and returns what changed, in order. Throws when the connection to
    /// the bus is lost.
    ///
    /// A seat signal that names a session not seen before is resolved (logind's `User` of it) before the next
    /// message is read, waiting at most half a second: that is what lets the daemon close the old session's
    /// clients before it reads any touch that followed the switch.
    public func process() throws(BusError) -> [Change] {
        defer {
            changes.removeAll(keepingCapacity: true)
            for key in answered { calls[key] = nil }
            answered.removeAll()
        }
        if let retry = sessionRetry, sessionWork == nil, retry.at <= MonotonicClock.now() {
            handle(retry.work)
        }
        // Bounded, so that a flood of messages cannot keep the input thread here: the rest waits for the next turn
        // (the descriptor stays readable).
        for _ in 0..<256 {
            let progressed = try bus.processOne()
            if let work = sessionWork {
                sessionWork = nil
                handle(work)
            }
            if !progressed { break }
        }
        return changes
    }

    /// Starts or stops following the accelerometer (a reloaded configuration gained or lost `rotation = "auto"`).
    public func setFollowAccelerometer(_ follow: Bool) {
        guard follow != followAccelerometer else { return }
        followAccelerometer = follow
        if follow {
            claimAccelerometer()
        } else if accelerometerClaimed {
            accelerometerClaimed = false
            orientation = nil
            send(BusMethod(destination: Self.sensorProxy, path: Self.sensorPath, interface: Self.sensorProxy, member: "ReleaseAccelerometer")) { _ in }
        }
    }

    // MARK: - Subscriptions

    private func subscribe() throws(BusError) {
        let owners = "type='signal',sender='\(Self.busDriver)',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'"
        for name in [Self.logind, Self.sensorProxy] {
            matches.append(try bus.addMatch("\(owners),arg0='\(name)'") { [unowned self] in self.nameOwnerChanged($0) })
        }
        if options.followSessions {
            let rule = "type='signal',sender='\(Self.logind)',path='\(seatPath)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='org.freedesktop.login1.Seat'"
            matches.append(try bus.addMatch(rule) { [unowned self] in self.seatChanged($0) })
        }
        let sleep = "type='signal',sender='\(Self.logind)',path='/org/freedesktop/login1',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"
        matches.append(try bus.addMatch(sleep) { [unowned self] in self.prepareForSleep($0) })
        let sensor = "type='signal',sender='\(Self.sensorProxy)',path='\(Self.sensorPath)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='\(Self.sensorProxy)'"
        matches.append(try bus.addMatch(sensor) { [unowned self] in self.sensorChanged($0) })
    }

    /// Whether `message` comes from the current owner of `service` (a signal anyone could have sent otherwise).
    private func isFromOwner(_ message: BusMessage, of service: String) -> Bool {
        guard let sender = message.sender, let owner = owners[service], sender == owner else {
            let forger = message.sender ?? "nobody"
            if reportedForgers.count < 16 && reportedForgers.insert(forger).inserted {
                logger.warning("ignored a \(message.member ?? "signal") for \(service) sent by \(forger), which does not own that name (\(owners[service] ?? "nobody") does)")
            }
            return false
        }
        return true
    }

    private func refreshOwner(of name: String) {
        let method = BusMethod(destination: Self.busDriver, path: "/org/freedesktop/DBus", interface: Self.busDriver, member: "GetNameOwner")
        do throws(BusError) {
            let reply = try bus.call(method, [name], timeout: Self.callTimeout)
            guard case .string(let owner)? = reply.body.first else {
                throw BusError.reply(call: method.description, problem: "expected a string, got \(reply.body)")
            }
            owners[name] = owner
        } catch {
            owners[name] = nil
            if error.remoteName != "org.freedesktop.DBus.Error.NameHasNoOwner" { logger.error("\(error)") }
        }
    }

    // MARK: - Services coming and going

    private func nameOwnerChanged(_ result: Result<BusMessage, BusError>) {
        guard case .success(let m) = result else {
            if case .failure(let e) = result { logger.error("NameOwnerChanged: \(e)") }
            return
        }
        // Only the bus itself sends NameOwnerChanged (no connection can own its name).
        guard m.sender == Self.busDriver else { return }
        guard m.body.count == 3, case .string(let name) = m.body[0], case .string = m.body[1], case .string(let newOwner) = m.body[2] else {
            logger.error("NameOwnerChanged with an unexpected signature (\(m.body.map(\.signature).joined())): ignored")
            return
        }
        owners[name] = newOwner.isEmpty ? nil : newOwner
        switch name {
        case Self.logind:
            if newOwner.isEmpty {
                logger.warning("logind left the system bus: nobody counts as the seat's active session until it is back")
                if options.followSessions { sessionWork = .vanished }
            } else {
                logger.notice("logind is on the system bus again")
                saidAbsent.remove(Self.logind)
                if options.followSessions { sessionWork = .fetch }
            }
        case Self.sensorProxy:
            if newOwner.isEmpty {
                accelerometerClaimed = false
                if followAccelerometer {
                    logger.warning("iio-sensor-proxy left the system bus: devices with rotation = \"auto\" keep their last rotation")
                }
            } else if followAccelerometer {
                logger.notice("iio-sensor-proxy is on the system bus again: claiming the accelerometer")
                saidAbsent.remove(Self.sensorProxy)
                claimAccelerometer()
            }
        default:
            break
        }
    }

    // MARK: - The seat's active session

    private func seatChanged(_ result: Result<BusMessage, BusError>) {
        guard case .success(let m) = result else {
            if case .failure(let e) = result { logger.error("logind: \(e); asking for the active session") }
            sessionWork = .fetch
            return
        }
        guard isFromOwner(m, of: Self.logind) else { return }
        guard m.body.count == 3, let changed = m.body[1].propertyDictionary, let invalidated = m.body[2].stringArray else {
            logger.error("logind: PropertiesChanged on \(seatPath) has the signature \(m.body.map(\.signature).joined()), not sa{sv}as; asking for the active session")
            sessionWork = .fetch
            return
        }
        if let value = changed["ActiveSession"] {
            if let session = Self.sessionReference(value) {
                sessionWork = .known(id: session.id, path: session.path)
            } else {
                logger.error("logind: the seat's ActiveSession is \(value.signature) \(value), not (so); asking again")
                sessionWork = .fetch
            }
        } else if invalidated.contains("ActiveSession") {
            sessionWork = .fetch
        }
    }

    private func handle(_ work: SessionWork) {
        let resolved: ActiveSession?
        let retry = sessionRetry
        sessionRetry = nil
        sessionReadFailed = false
        switch work {
        case .known(let id, let path): resolved = resolveActiveSession((id, path))
        case .fetch: resolved = resolveActiveSession(fetchActiveSession())
        case .vanished: resolved = nil
        }
        if sessionReadFailed, owners[Self.logind] != nil {
            // logind is there but did not answer in time: ask again later rather than leave the seat's user
            // refused until the next switch. A newer signal replaces this (it sets sessionWork first).
            let delay = retry.map { Microseconds(min($0.delay.value * 2, Self.sessionRetryMaximum.value)) } ?? Self.sessionRetryFirst
            sessionRetry = (work, MonotonicClock.now() + delay, delay)
            logger.notice("logind: asking again for the active session of \(options.seat) in \(delay.value / 1000) ms")
        }
        guard resolved != activeSession else { return }
        activeSession = resolved
        logger.notice("active session on \(options.seat): \(resolved.map(\.description) ?? "none")")
        changes.append(.activeSession(resolved))
    }

    /// `(so)`: a session id and its object path; logind's `("", "/")` means no session.
    static func sessionReference(_ value: BusValue) -> (id: String, path: String)? {
        guard case .structure(let items) = value.unwrapped, items.count == 2, case .string(let id) = items[0],
            case .objectPath(let path) = items[1]
        else { return nil }
        return (id, path)
    }

    /// The seat's `ActiveSession`; `nil` when logind is absent or says there is none (the failure is logged once).
    private func fetchActiveSession() -> (id: String, path: String)? {
        do throws(BusError) {
            let value = try property(Self.logind, seatPath, "org.freedesktop.login1.Seat", "ActiveSession")
            guard let session = Self.sessionReference(value) else {
                throw BusError.reply(call: "\(seatPath) ActiveSession", problem: "expected (so), got \(value.signature) \(value)")
            }
            saidAbsent.remove(Self.logind)
            return session
        } catch {
            sessionReadFailed = true
            reportAbsent(Self.logind, "cannot read the active session of \(options.seat) from logind (\(error)): nobody counts as the seat's active session")
            return nil
        }
    }

    private func resolveActiveSession(_ session: (id: String, path: String)?) -> ActiveSession? {
        guard let session, !session.id.isEmpty, session.path != "/" else { return nil }
        if let uid = sessionUIDs[session.path] { return ActiveSession(id: session.id, uid: uid) }
        do throws(BusError) {
            let value = try property(Self.logind, session.path, "org.freedesktop.login1.Session", "User")
            guard case .structure(let items) = value, items.count == 2, case .uint32(let uid) = items[0] else {
                throw BusError.reply(call: "\(session.path) User", problem: "expected (uo), got \(value.signature) \(value)")
            }
            if sessionUIDs.count >= 256 { sessionUIDs.removeAll() }
            sessionUIDs[session.path] = uid
            return ActiveSession(id: session.id, uid: uid)
        } catch {
            sessionReadFailed = true
            logger.error("logind: cannot read the user of session \(session.id) (\(error)): nobody counts as the seat's active session")
            return nil
        }
    }

    private func property(_ service: String, _ path: String, _ interface: String, _ name: String) throws(BusError) -> BusValue {
        let reply = try bus.call(.getProperty(service, path), [interface, name], timeout: Self.callTimeout)
        guard reply.body.count == 1, case .variant(let value) = reply.body[0] else {
            throw BusError.reply(call: "\(path) \(interface).\(name)", problem: "expected a variant, got \(reply.body.map(\.signature).joined())")
        }
        return value
    }

    private func reportAbsent(_ service: String, _ message: String) {
        guard saidAbsent.insert(service).inserted else { return }
        logger.warning("\(message)")
    }

    // MARK: - Sleep

    private func prepareForSleep(_ result: Result<BusMessage, BusError>) {
        guard case .success(let m) = result, isFromOwner(m, of: Self.logind) else { return }
        guard m.body.count == 1, case .bool(let start) = m.body[0] else {
            logger.error("logind: PrepareForSleep with the signature \(m.body.map(\.signature).joined()), not b: ignored")
            return
        }
        changes.append(.preparingForSleep(start))
    }

    // MARK: - The accelerometer

    private func claimAccelerometer() {
        let claim = BusMethod(destination: Self.sensorProxy, path: Self.sensorPath, interface: Self.sensorProxy, member: "ClaimAccelerometer")
        send(claim) { [unowned self] result in
            switch result {
            case .success:
                accelerometerClaimed = true
                saidAbsent.remove(Self.sensorProxy)
                readAccelerometer()
            case .failure(let error):
                reportAbsent(Self.sensorProxy, "cannot claim iio-sensor-proxy's accelerometer (\(error)): devices with rotation = \"auto\" keep their rotation until it is available")
            }
        }
    }

    private func readAccelerometer() {
        send(.getAllProperties(Self.sensorProxy, Self.sensorPath), [Self.sensorProxy]) { [unowned self] result in
            switch result {
            case .success(let m):
                guard m.body.count == 1, let properties = m.body[0].propertyDictionary else {
                    logger.error("iio-sensor-proxy: GetAll answered \(m.body.map(\.signature).joined()), not a{sv}")
                    return
                }
                accelerometer(properties)
            case .failure(let error):
                logger.error("iio-sensor-proxy: \(error)")
            }
        }
    }

    private func sensorChanged(_ result: Result<BusMessage, BusError>) {
        guard case .success(let m) = result, isFromOwner(m, of: Self.sensorProxy) else { return }
        guard followAccelerometer else { return }
        guard m.body.count == 3, let changed = m.body[1].propertyDictionary else {
            logger.error("iio-sensor-proxy: PropertiesChanged has the signature \(m.body.map(\.signature).joined()), not sa{sv}as: ignored")
            return
        }
        accelerometer(changed)
    }

    private func accelerometer(_ properties: [String: BusValue]) {
        if let has = properties["HasAccelerometer"] {
            if case .bool(false) = has {
                reportAbsent("accelerometer", "iio-sensor-proxy has no accelerometer: devices with rotation = \"auto\" keep their rotation")
            } else if case .bool(true) = has {
                saidAbsent.remove("accelerometer")
            }
        }
        guard let value = properties["AccelerometerOrientation"] else { return }
        guard case .string(let text) = value, let reading = AccelerometerOrientation(rawValue: text) else {
            logger.error("iio-sensor-proxy: AccelerometerOrientation is \(value.signature) \(value), not one of \(AccelerometerOrientation.allCases.map(\.rawValue).joined(separator: ", ")): ignored")
            return
        }
        guard reading != orientation else { return }
        orientation = reading
        logger.info("accelerometer: \(reading.rawValue)")
        changes.append(.orientation(reading))
    }

    /// An asynchronous call whose slot is kept until it is answered.
    private func send(_ method: BusMethod, _ arguments: [String] = [], handler: @escaping (Result<BusMessage, BusError>) -> Void) {
        var key: ObjectIdentifier? = nil
        do throws(BusError) {
            let slot = try bus.callAsync(method, arguments, timeout: Microseconds(Self.callTimeout.value * 10)) { [unowned self] result in
                if let key { answered.append(key) }
                handler(result)
            }
            key = ObjectIdentifier(slot)
            calls[ObjectIdentifier(slot)] = slot
        } catch {
            handler(.failure(error))
        }
    }
}
