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
/// logged (quoted up to ``quoteLimit`` characters, each kind of complaint at most once per ``complaintInterval``)
/// and ignored, never a crash.
///
/// Nothing here waits for another process: the input thread polls this bus beside the devices, so every call is
/// asynchronous and its answer is handled by a later ``process()``. While logind has not answered, the seat's
/// active session is the last one it named, never a wider one: a signal that names a new session whose user is
/// not known yet makes it count for nobody until logind says whose it is; a signal that only says the value
/// changed keeps the one in force until the answer. A question that fails (an error, or no answer within
/// ``callTimeout``) makes the session count for nobody, and is asked again after 250 ms, then twice as long each
/// time up to 8 s, until logind answers or names another session. A claim of the accelerometer (or its first
/// reading) that fails while iio-sensor-proxy owns its name is made again on the same schedule: a proxy that was
/// slow to answer (just started, on a loaded machine) is not given up on.
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
        /// The seat's active session now; `nil`: none is, or logind cannot say (it left the bus, or has not said
        /// yet whose the session it named is).
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
    /// A local service answers in well under a millisecond. Nobody waits for the answer (see the type's comment):
    /// this only bounds how long a question stays open before it counts as failed and is asked again.
    static let callTimeout = Microseconds(2_000_000)
    /// How long ``init(options:logger:)`` waits for the first answers (the services' owners, the seat's active
    /// session), so that the first client is judged by the session; a slower answer is taken by ``process()``.
    static let startupWait = Microseconds(500_000)
    /// Each kind of complaint about what a service sent is logged at most this often; the next line says how many
    /// were held back.
    static let complaintInterval = Duration.seconds(10)
    /// How much of a value a log line quotes.
    static let quoteLimit = 160

    private let bus: SDBus
    private let options: Options
    private let logger: Logger
    private let seatPath: String
    private var matches: [BusSlot] = []
    /// Calls in flight, kept alive until they are answered or dropped.
    private var calls: [ObjectIdentifier: BusSlot] = [:]
    /// Slots answered or dropped, freed once the bus is not dispatching (never inside their own handler).
    private var retired: [BusSlot] = []
    /// Senders of forged signals already reported (a few: a peer sending them in a loop must not flood the log).
    private var reportedForgers: Set<String> = []
    private var changes: [Change] = []
    /// The unique names owning each service now: signals from anyone else are ignored.
    private var owners: [String: String] = [:]
    /// The services whose owner the bus has not told yet (``init(options:logger:)`` waits for them).
    private var ownersAsked: Set<String> = []
    /// Sessions' users, by session object path: a session never changes user, so a switch back to one seen
    /// before needs no call.
    private var sessionUIDs: [String: UInt32] = [:]
    /// The question about the active session logind has not answered yet: at most one, a newer one replaces it.
    private var sessionQuery: SessionQuery?
    private var sessionQueries = 0
    /// A question that failed while logind owns its name, asked again when ``sessionRetry`` says.
    private var sessionRetryWork: SessionWork?
    private var sessionRetry = RetrySchedule()
    private var followAccelerometer: Bool
    private var accelerometerClaimed = false
    /// A claim (or first reading) iio-sensor-proxy did not answer, made again when this says.
    private var claimRetry = RetrySchedule()
    /// The last orientation reported, so that a repeated value is not a change.
    private var orientation: AccelerometerOrientation?
    /// What was last logged about each service's presence, so that each state is said once.
    private var saidAbsent: Set<String> = []
    private var complaints: [Complaint: LogThrottle] = [:]

    private enum SessionWork: Equatable {
        /// A signal named the session: its user is read (unless known).
        case known(id: String, path: String)
        /// A signal only said it changed (`invalidated_properties`), or carried something unreadable: the seat's
        /// `ActiveSession` is read.
        case fetch
        /// logind left the bus.
        case vanished
    }

    private struct SessionQuery {
        var work: SessionWork
        /// Tells its answer from a replaced question's.
        var number: Int
        var call: ObjectIdentifier?
    }

    /// The kinds of complaint, each throttled on its own.
    private enum Complaint: Hashable {
        case seatSignal, sessionRead, sleepSignal, sensorSignal, sensorValue, sensorCall, ownerSignal, ownerCall
    }

    /// The session active on the seat (when ``Options/followSessions``): read at start-up, then kept current by
    /// ``process()``.
    public private(set) var activeSession: ActiveSession?

    /// Whether a question about the active session waits for logind's answer (tests watch it).
    public var isAskingLogind: Bool { sessionQuery != nil }

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket), subscribes, and asks for the
    /// seat's active session, waiting at most ``startupWait`` for the answers.
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
        for name in [Self.logind, Self.sensorProxy] { askOwner(of: name) }
        if options.followSessions { handle(.fetch) }
        if followAccelerometer { claimAccelerometer() }
        let until = MonotonicClock.now() + Self.startupWait
        var startup: [Change] = []
        let waiter = DescriptorWaiter()
        while !ownersAsked.isEmpty || sessionQuery != nil {
            let now = MonotonicClock.now()
            guard now < until else { break }
            waiter.removeAll()
            waiter.add(bus.fd, events: bus.events)
            try? waiter.wait(timeoutMicroseconds: (until - now).value)
            startup += try process()
        }
        retired.removeAll()
        // The active session is read from ``activeSession``; what else changed meanwhile (a reading iio-sensor-proxy
        // answered while logind had not) is handed to the first ``process()``, which ``deadline`` asks for at once.
        // Dropped, a first reading was never reported: it is the value already seen, so only a different one was.
        changes = startup.filter { if case .activeSession = $0 { false } else { true } }
    }

    public var pollDescriptor: Int32 { bus.fd }
    /// `POLLIN`, and `POLLOUT` while something waits to be written.
    public var pollEvents: Int16 { bus.events }
    /// When ``process()`` must run even if nothing is readable (a call timing out, a question to ask again).
    public var deadline: MonotonicInstant? {
        // Changes read during start-up wait for the first call.
        if !changes.isEmpty { return .zero }
        return [bus.deadline, sessionRetry.due, claimRetry.due].compactMap { $0 }.min()
    }

    /// Reads and handles everything pending, and returns what changed, in order; never waits. Throws when the
    /// connection to the bus is lost.
    ///
    /// A seat signal that names a session whose user is not known takes effect at once, as nobody's session: so
    /// the old session's clients are closed before any touch that followed the switch is read, and the new
    /// session's user is admitted once logind's answer arrives (a later call).
    public func process() throws(BusError) -> [Change] {
        defer {
            changes.removeAll(keepingCapacity: true)
            retired.removeAll()
        }
        let now = MonotonicClock.now()
        if sessionRetry.isDue(at: now), let work = sessionRetryWork {
            handle(work)
        }
        if claimRetry.isDue(at: now) {
            claimRetry.cancel()
            if followAccelerometer && !accelerometerClaimed && owners[Self.sensorProxy] != nil { claimAccelerometer() }
        }
        // Bounded, so that a flood of messages cannot keep the input thread here: the rest waits for the next turn
        // (the descriptor stays readable).
        for _ in 0..<256 {
            if !(try bus.processOne()) { break }
        }
        return changes
    }

    /// Starts or stops following the accelerometer (a reloaded configuration gained or lost `rotation = "auto"`).
    public func setFollowAccelerometer(_ follow: Bool) {
        guard follow != followAccelerometer else { return }
        followAccelerometer = follow
        if follow {
            claimAccelerometer()
            return
        }
        claimRetry.reset()
        if accelerometerClaimed {
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
                logger.warning("ignored a \(message.member.map { Self.quoted($0) } ?? "signal") for \(service) sent by \(Self.quoted(forger)), which does not own that name (\(owners[service] ?? "nobody") does)")
            }
            return false
        }
        return true
    }

    /// Asks the bus who owns `name` now; `NameOwnerChanged` keeps it current from then on.
    private func askOwner(of name: String) {
        ownersAsked.insert(name)
        let method = BusMethod(destination: Self.busDriver, path: "/org/freedesktop/DBus", interface: Self.busDriver, member: "GetNameOwner")
        send(method, [name]) { [unowned self] result in
            ownersAsked.remove(name)
            switch result {
            case .success(let reply):
                guard reply.body.count == 1, case .string(let owner) = reply.body[0] else {
                    complain(.ownerCall, "the bus answered GetNameOwner(\(name)) with \(Self.quoted(reply.body)), not a string")
                    return
                }
                owners[name] = owner
            case .failure(let error):
                owners[name] = nil
                if error.remoteName != "org.freedesktop.DBus.Error.NameHasNoOwner" { complain(.ownerCall, "\(error)") }
            }
        }
    }

    // MARK: - Services coming and going

    private func nameOwnerChanged(_ result: Result<BusMessage, BusError>) {
        guard case .success(let m) = result else {
            if case .failure(let e) = result { complain(.ownerSignal, "NameOwnerChanged: \(e)") }
            return
        }
        // Only the bus itself sends NameOwnerChanged (no connection can own its name).
        guard m.sender == Self.busDriver else { return }
        guard m.body.count == 3, case .string(let name) = m.body[0], case .string = m.body[1], case .string(let newOwner) = m.body[2] else {
            complain(.ownerSignal, "NameOwnerChanged with an unexpected signature (\(Self.signature(m.body))): ignored")
            return
        }
        owners[name] = newOwner.isEmpty ? nil : newOwner
        switch name {
        case Self.logind:
            if newOwner.isEmpty {
                logger.warning("logind left the system bus: nobody counts as the seat's active session until it is back")
                if options.followSessions { handle(.vanished) }
            } else {
                logger.notice("logind is on the system bus again")
                saidAbsent.remove(Self.logind)
                if options.followSessions { handle(.fetch) }
            }
        case Self.sensorProxy:
            if newOwner.isEmpty {
                accelerometerClaimed = false
                // Claimed again when it comes back, at once.
                claimRetry.reset()
                if followAccelerometer {
                    logger.warning("iio-sensor-proxy left the system bus: devices with rotation = \"auto\" keep their last rotation")
                }
            } else if followAccelerometer {
                logger.notice("iio-sensor-proxy is on the system bus again: claiming the accelerometer")
                saidAbsent.remove(Self.sensorProxy)
                claimRetry.reset()
                claimAccelerometer()
            }
        default:
            break
        }
    }

    // MARK: - The seat's active session

    private func seatChanged(_ result: Result<BusMessage, BusError>) {
        guard case .success(let m) = result else {
            if case .failure(let e) = result { complain(.seatSignal, "logind: \(e); asking for the active session") }
            handle(.fetch)
            return
        }
        guard isFromOwner(m, of: Self.logind) else { return }
        guard m.body.count == 3, let changed = m.body[1].propertyDictionary, let invalidated = m.body[2].stringArray else {
            complain(.seatSignal, "logind: PropertiesChanged on \(seatPath) has the signature \(Self.signature(m.body)), not sa{sv}as; asking for the active session")
            handle(.fetch)
            return
        }
        if let value = changed["ActiveSession"] {
            if let session = Self.sessionReference(value) {
                handle(.known(id: session.id, path: session.path))
            } else {
                complain(.seatSignal, "logind: the seat's ActiveSession is \(value.signature) \(Self.quoted(value)), not (so); asking for it")
                handle(.fetch)
            }
        } else if invalidated.contains("ActiveSession") {
            handle(.fetch)
        }
    }

    /// Acts on what logind said (or that it left), asking it what is missing; never waits for the answer.
    private func handle(_ work: SessionWork) {
        sessionRetry.cancel()
        sessionRetryWork = nil
        switch work {
        case .vanished:
            dropSessionQuery()
            sessionRetry.reset()
            set(nil)
        case .fetch:
            // Already asking: the answer will be as new as this signal.
            if sessionQuery?.work == .fetch { return }
            dropSessionQuery()
            // logind said only that something changed: the last session it named counts until it says which.
            ask(.fetch)
        case .known(let id, let path):
            guard !id.isEmpty, path != "/" else {
                dropSessionQuery()
                set(nil)
                return
            }
            if let uid = sessionUIDs[path] {
                dropSessionQuery()
                set(ActiveSession(id: id, uid: uid))
                return
            }
            if sessionQuery?.work == work { return }
            dropSessionQuery()
            // The last session logind named is this one, whose user it has yet to say: nobody counts meanwhile
            // (the previous session's user would be a wider grant than the seat's state allows).
            if activeSession != nil {
                logger.notice("session \(Self.quoted(id)) is active on \(options.seat); nobody counts as its user until logind says who it is")
            }
            set(nil)
            ask(work)
        }
    }

    /// Sends the question `work` needs; its answer comes through ``answered(_:_:_:)``.
    private func ask(_ work: SessionWork) {
        let method: BusMethod
        let arguments: [String]
        switch work {
        case .fetch:
            method = .getProperty(Self.logind, seatPath)
            arguments = ["org.freedesktop.login1.Seat", "ActiveSession"]
        case .known(_, let path):
            method = .getProperty(Self.logind, path)
            arguments = ["org.freedesktop.login1.Session", "User"]
        case .vanished:
            return
        }
        sessionQueries += 1
        let number = sessionQueries
        sessionQuery = SessionQuery(work: work, number: number, call: nil)
        let call = send(method, arguments) { [unowned self] result in answered(work, number, result) }
        if sessionQuery?.number == number { sessionQuery?.call = call }
    }

    /// Forgets the question in flight: its answer, if it comes, is dropped with its slot.
    private func dropSessionQuery() {
        guard let query = sessionQuery else { return }
        sessionQuery = nil
        if let call = query.call, let slot = calls.removeValue(forKey: call) { retired.append(slot) }
    }

    private func answered(_ work: SessionWork, _ number: Int, _ result: Result<BusMessage, BusError>) {
        guard sessionQuery?.number == number else { return }
        sessionQuery = nil
        let error: BusError
        switch (work, result) {
        case (.fetch, .success(let reply)):
            do throws(BusError) {
                let session = try Self.property(reply, "\(seatPath) ActiveSession") { Self.sessionReference($0) }
                saidAbsent.remove(Self.logind)
                sessionRetry.reset()
                handle(.known(id: session.id, path: session.path))
                return
            } catch let e {
                error = e
            }
        case (.known(let id, let path), .success(let reply)):
            do throws(BusError) {
                let uid = try Self.property(reply, "\(path) User") { value -> UInt32? in
                    guard case .structure(let items) = value, items.count == 2, case .uint32(let uid) = items[0] else { return nil }
                    return uid
                }
                if sessionUIDs.count >= 256 { sessionUIDs.removeAll() }
                sessionUIDs[path] = uid
                sessionRetry.reset()
                set(ActiveSession(id: id, uid: uid))
                return
            } catch let e {
                error = e
            }
        case (_, .failure(let e)):
            error = e
        case (.vanished, .success):
            return
        }
        failed(work, error)
    }

    /// A question logind did not answer (in time, or at all): nobody counts (closed, never open), and while logind
    /// owns its name it is asked again later, each time later up to ``RetrySchedule/maximum``.
    private func failed(_ work: SessionWork, _ error: BusError) {
        set(nil)
        let what: String
        switch work {
        case .known(let id, _): what = "the user of session \(Self.quoted(id))"
        case .fetch, .vanished: what = "the active session of \(options.seat)"
        }
        guard owners[Self.logind] != nil else {
            reportAbsent(Self.logind, "cannot read \(what) from logind (\(error)): nobody counts as the seat's active session")
            return
        }
        let delay = sessionRetry.failed(at: MonotonicClock.now())
        sessionRetryWork = work
        complain(.sessionRead, "logind: cannot read \(what) (\(error)): nobody counts as the seat's active session; asking again for the active session of \(options.seat) in \(delay.value / 1000) ms")
    }

    private func set(_ session: ActiveSession?) {
        guard session != activeSession else { return }
        activeSession = session
        logger.notice("active session on \(options.seat): \(session.map { "session \(Self.quoted($0.id)) (uid \($0.uid))" } ?? "none")")
        changes.append(.activeSession(session))
    }

    /// `(so)`: a session id and its object path; logind's `("", "/")` means no session.
    static func sessionReference(_ value: BusValue) -> (id: String, path: String)? {
        guard case .structure(let items) = value.unwrapped, items.count == 2, case .string(let id) = items[0],
            case .objectPath(let path) = items[1]
        else { return nil }
        return (id, path)
    }

    /// The one variant a `Properties.Get` answers, read by `read`; an error naming `what` otherwise.
    private static func property<T>(_ reply: BusMessage, _ what: String, _ read: (BusValue) -> T?) throws(BusError) -> T {
        guard reply.body.count == 1, case .variant(let value) = reply.body[0] else {
            throw .reply(call: what, problem: "expected a variant, got \(signature(reply.body))")
        }
        guard let result = read(value) else {
            throw .reply(call: what, problem: "got \(value.signature) \(quoted(value))")
        }
        return result
    }

    private func reportAbsent(_ service: String, _ message: String) {
        guard saidAbsent.insert(service).inserted else { return }
        logger.warning("\(message)")
    }

    // MARK: - Sleep

    private func prepareForSleep(_ result: Result<BusMessage, BusError>) {
        guard case .success(let m) = result, isFromOwner(m, of: Self.logind) else { return }
        guard m.body.count == 1, case .bool(let start) = m.body[0] else {
            complain(.sleepSignal, "logind: PrepareForSleep with the signature \(Self.signature(m.body)), not b: ignored")
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
                claimFailed("cannot claim iio-sensor-proxy's accelerometer (\(error))")
            }
        }
    }

    /// A claim, or the reading that follows it, that failed: while iio-sensor-proxy owns its name (it was slow, or
    /// broken for a moment), the claim is made again later, each time later up to ``RetrySchedule/maximum``;
    /// without it, it is claimed when it comes back (``nameOwnerChanged(_:)``).
    private func claimFailed(_ what: String) {
        accelerometerClaimed = false
        guard followAccelerometer, owners[Self.sensorProxy] != nil else {
            reportAbsent(Self.sensorProxy, "\(what): devices with rotation = \"auto\" keep their rotation until it is available")
            return
        }
        let delay = claimRetry.failed(at: MonotonicClock.now())
        complain(.sensorCall, "\(what): devices with rotation = \"auto\" keep their rotation; claiming it again in \(delay.value / 1000) ms")
    }

    private func readAccelerometer() {
        send(.getAllProperties(Self.sensorProxy, Self.sensorPath), [Self.sensorProxy]) { [unowned self] result in
            switch result {
            case .success(let m):
                guard m.body.count == 1, let properties = m.body[0].propertyDictionary else {
                    complain(.sensorCall, "iio-sensor-proxy: GetAll answered \(Self.signature(m.body)), not a{sv}")
                    return
                }
                claimRetry.reset()
                accelerometer(properties)
            case .failure(let error):
                claimFailed("cannot read iio-sensor-proxy's accelerometer (\(error))")
            }
        }
    }

    private func sensorChanged(_ result: Result<BusMessage, BusError>) {
        guard case .success(let m) = result, isFromOwner(m, of: Self.sensorProxy) else { return }
        guard followAccelerometer else { return }
        guard m.body.count == 3, let changed = m.body[1].propertyDictionary else {
            complain(.sensorSignal, "iio-sensor-proxy: PropertiesChanged has the signature \(Self.signature(m.body)), not sa{sv}as: ignored")
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
            complain(.sensorValue, "iio-sensor-proxy: AccelerometerOrientation is \(value.signature) \(Self.quoted(value)), not one of \(AccelerometerOrientation.allCases.map(\.rawValue).joined(separator: ", ")): ignored")
            return
        }
        guard reading != orientation else { return }
        orientation = reading
        logger.info("accelerometer: \(reading.rawValue)")
        changes.append(.orientation(reading))
    }

    // MARK: - Calls and complaints

    /// An asynchronous call whose slot is kept until it is answered (or dropped); its key in ``calls``, `nil` when
    /// it could not be sent (the handler has then been told why).
    @discardableResult
    private func send(_ method: BusMethod, _ arguments: [String] = [], handler: @escaping (Result<BusMessage, BusError>) -> Void) -> ObjectIdentifier? {
        var key: ObjectIdentifier? = nil
        do throws(BusError) {
            let slot = try bus.callAsync(method, arguments, timeout: Self.callTimeout) { [unowned self] result in
                if let key, let slot = calls.removeValue(forKey: key) { retired.append(slot) }
                handler(result)
            }
            key = ObjectIdentifier(slot)
            calls[ObjectIdentifier(slot)] = slot
            return key
        } catch {
            handler(.failure(error))
            return nil
        }
    }

    /// Logs what a service sent that we could not use, at most once per ``complaintInterval`` for each kind, saying
    /// how many like it were held back: a service that repeats itself cannot flood the journal.
    private func complain(_ kind: Complaint, _ message: @autoclosure () -> String) {
        let (allowed, held) = complaints[kind, default: LogThrottle(interval: Self.complaintInterval)].admit()
        guard allowed else { return }
        let more = held > 0 ? " (\(held) more like it in the last \(Self.complaintInterval.components.seconds) s not logged)" : ""
        logger.error("\(message())\(more)")
    }

    /// A value a peer sent, as a log line quotes it: cut at ``quoteLimit`` characters, control characters escaped.
    static func quoted(_ value: BusValue) -> String { value.description(limit: quoteLimit) }
    static func quoted(_ values: [BusValue]) -> String { BusValue.structure(values).description(limit: quoteLimit) }
    static func quoted(_ text: String) -> String {
        let quoted = BusValue.string(text).description(limit: quoteLimit)
        // Without the quotes a plain name needs none of.
        return quoted.hasPrefix("\"") && quoted.hasSuffix("\"") && quoted.count >= 2 ? String(quoted.dropFirst().dropLast()) : quoted
    }

    /// The signature of a message's body, cut as a quoted value is.
    static func signature(_ body: [BusValue]) -> String {
        let text = body.map(\.signature).joined()
        return text.count <= quoteLimit ? text : String(text.prefix(quoteLimit)) + "…"
    }
}

/// When to ask a service again after a question failed: ``first`` after the first failure, then twice as long
/// each time up to ``maximum``, until it answers. The seat's two services (logind's active session,
/// iio-sensor-proxy's claim) each have one.
struct RetrySchedule {
    static let first = Microseconds(250_000)
    static let maximum = Microseconds(8_000_000)

    /// When to ask again; `nil`: nothing to ask.
    private(set) var due: MonotonicInstant?
    /// The wait before the last retry; `nil` once the service has answered.
    private var delay: Microseconds?

    /// A question failed at `now`: it is asked again after the returned wait.
    mutating func failed(at now: MonotonicInstant) -> Microseconds {
        let next = delay.map { Microseconds(min($0.value * 2, Self.maximum.value)) } ?? Self.first
        delay = next
        due = now + next
        return next
    }

    func isDue(at now: MonotonicInstant) -> Bool { due.map { $0 <= now } ?? false }

    /// Nothing to ask any more (it is asked now, or something newer replaced the question); the next failure
    /// waits longer still.
    mutating func cancel() { due = nil }

    /// The service answered (or left the bus): the next failure starts from ``first`` again.
    mutating func reset() {
        due = nil
        delay = nil
    }
}
