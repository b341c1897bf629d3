public import EdgeSwipeCore

/// Turns one device's evdev events into the core's touch frames. Pure Swift, one per device; the live libevdev
/// path and recordings share it, so that a recording exercises exactly what a device does.
///
/// On `SYN_REPORT` it yields the touches that changed in that frame (down, motion, up), in the user's normalized
/// coordinates through the device's geometry.
///
/// What it trusts, and why:
/// - A touch is reported only if it was seen to land with a known position. A recording that starts with a
///   finger already down, or a touch that landed while events were lost, is ignored until it lifts: starting a
///   swipe from somewhere that is not the landing point would invent an edge swipe.
/// - `SYN_DROPPED` yields ``Output/eventsLost(_:_:)`` (the host calls `Engine.eventsLost`), and everything up to
///   and including the next `SYN_REPORT` is discarded, as the kernel documents. Touches down at that moment are
///   then ignored until they lift. For live devices, libevdev's resync events go to ``feedResync(_:)``.
/// - Semi-MT devices are refused at `init`: their slots hold a bounding box.
///
/// The output frame's touch buffer is reused: as long as the caller does not keep the frame, decoding does not
/// allocate in the steady state.
public struct EvdevFrameDecoder: Sendable {
    /// The most slots (or protocol A contacts) tracked; more than any real device has.
    public static let maximumSlots = 64

    /// What a frame of events amounts to.
    public enum Output: Hashable, Sendable {
        /// The touches that changed in one `SYN_REPORT` frame.
        case frame(TouchFrame)
        /// `SYN_DROPPED`: the host must call `Engine.eventsLost(on:at:into:)`.
        case eventsLost(DeviceID, MonotonicInstant)
    }

    /// Counters for logs and tests.
    public struct Statistics: Hashable, Sendable {
        /// Frames that carried at least one touch change.
        public var frames = 0
        /// `SYN_DROPPED` events seen.
        public var eventsLost = 0
        /// Events discarded after `SYN_DROPPED`, up to the next `SYN_REPORT`.
        public var discardedEvents = 0
        /// Touches that were never reported: down before the stream began, across lost events, or without a
        /// known position.
        public var untrustedTouches = 0
        /// Events that made no sense here (a slot beyond the device's slot count, an MT event before any slot
        /// after a loss, a protocol A contact without a position, more contacts than can be tracked).
        public var ignoredEvents = 0
    }

    /// The geometry touches are normalized through.
    public private(set) var device: TouchDevice
    /// The protocol being decoded (never semi-MT).
    public let touchProtocol: TouchProtocol
    public private(set) var statistics = Statistics()

    private enum Mode: Sendable { case normal, discardingUntilReport, resyncing }
    private var mode = Mode.normal
    private var frame: TouchFrame
    private var slots: SlotDecoder
    private var contacts: ContactTracker
    private var single: SingleTouch

    /// A decoder for `device`, reading the protocol that `description` advertises.
    public init(description: EvdevDeviceDescription, device: TouchDevice) throws(TouchDeviceError) {
        let (_, touchProtocol) = try description.touchCapabilities()
        try self.init(protocol: touchProtocol, device: device, hasTouchKey: description.hasKey(EvdevKey.btnTouch))
    }

    /// A decoder for a known protocol. `hasTouchKey`: the device has `BTN_TOUCH`, so protocol A contacts count
    /// only while it is set (the Apple bcm5974 reports hovering contacts before it sets it), and a single-touch
    /// device is down while it is set (otherwise while `BTN_TOOL_FINGER` is).
    public init(protocol touchProtocol: TouchProtocol, device: TouchDevice, hasTouchKey: Bool = true) throws(TouchDeviceError) {
        if touchProtocol == .semiMultitouch { throw .semiMultitouch(name: device.name) }
        self.device = device
        self.touchProtocol = touchProtocol
        self.frame = TouchFrame(device: device.id, time: .zero, touches: [])
        let slotCount: Int =
            switch touchProtocol {
            case .multitouchB(let count): min(Self.maximumSlots, max(1, count))
            case .multitouchA, .semiMultitouch, .singleTouch: 0
            }
        self.slots = SlotDecoder(count: slotCount)
        self.contacts = ContactTracker(capacity: touchProtocol == .multitouchA ? 16 : 0, gated: hasTouchKey)
        self.single = SingleTouch(contactKey: hasTouchKey ? EvdevKey.btnTouch : EvdevKey.btnToolFinger)
        frame.touches.reserveCapacity(max(slotCount, touchProtocol == .multitouchA ? 32 : 2))
    }

    /// Replaces the geometry (a rotation or calibration changed at runtime). The id must stay the same.
    public mutating func update(device newDevice: TouchDevice) {
        device = newDevice
        frame.device = newDevice.id
    }

    /// Stops reporting the touches down now, as if events had been lost, without discarding what follows: for
    /// when the host told the engine to forget them (a geometry change re-adds the device). They are ignored
    /// until they lift; new touches are reported.
    public mutating func forgetTouches() {
        loseTrust(forgetPositions: false)
    }

    /// Touches currently reported down (for diagnostics and tests).
    public var touchesDown: Int {
        switch touchProtocol {
        case .multitouchB: slots.reportedCount
        case .multitouchA: contacts.reportedCount
        case .singleTouch: single.reported ? 1 : 0
        case .semiMultitouch: 0
        }
    }

    // MARK: - Input

    /// Feeds one event; returns an output at the end of a frame that changed something, or on `SYN_DROPPED`.
    public mutating func feed(_ event: EvdevEvent) -> Output? {
        feed(time: event.time, type: event.type, code: event.code, value: event.value)
    }

    /// Feeds one event given as its parts (what the libevdev path reads).
    public mutating func feed(time: MonotonicInstant, type: UInt16, code: UInt16, value: Int32) -> Output? {
        switch mode {
        case .normal:
            break
        case .discardingUntilReport:
            statistics.discardedEvents += 1
            if type == EvdevType.syn && code == EvdevSyn.report { mode = .normal }
            return nil
        case .resyncing:
            // The host stopped feeding resync events without their closing SYN_REPORT: the resync is over.
            finishResync()
        }
        if type == EvdevType.syn {
            switch code {
            case EvdevSyn.report: return endFrame(at: time)
            case EvdevSyn.dropped:
                loseTrust(forgetPositions: true)
                mode = .discardingUntilReport
                statistics.eventsLost += 1
                return .eventsLost(device.id, time)
            case EvdevSyn.mtReport:
                if touchProtocol == .multitouchA { contacts.endContact(statistics: &statistics) }
                return nil
            default: return nil
            }
        }
        apply(type: type, code: code, value: value)
        return nil
    }

    /// Feeds an event that libevdev returned with `LIBEVDEV_READ_STATUS_SYNC`: the `SYN_DROPPED` itself, then the
    /// state differences that bring the device back in step, closed by a `SYN_REPORT`. The state is applied
    /// silently; every touch down after the resync is ignored until it lifts.
    public mutating func feedResync(_ event: EvdevEvent) -> Output? {
        if event.type == EvdevType.syn && event.code == EvdevSyn.dropped {
            let wasResyncing = mode == .resyncing
            loseTrust(forgetPositions: false)
            mode = .resyncing
            if wasResyncing { return nil }
            statistics.eventsLost += 1
            return .eventsLost(device.id, event.time)
        }
        if mode != .resyncing {
            // A resync that libevdev did not open with SYN_DROPPED: treat it as one anyway.
            loseTrust(forgetPositions: false)
            mode = .resyncing
            statistics.eventsLost += 1
            applyResync(event)
            return .eventsLost(device.id, event.time)
        }
        applyResync(event)
        return nil
    }

    private mutating func applyResync(_ event: EvdevEvent) {
        if event.type == EvdevType.syn {
            if event.code == EvdevSyn.report { finishResync() }
            return
        }
        apply(type: event.type, code: event.code, value: event.value)
    }

    private mutating func finishResync() {
        mode = .normal
        switch touchProtocol {
        case .multitouchB: slots.distrustAll(forgetPositions: false, statistics: &statistics)
        case .multitouchA: contacts.discardFrame()
        case .singleTouch: single.distrust(forgetPositions: false, statistics: &statistics)
        case .semiMultitouch: break
        }
    }

    private mutating func apply(type: UInt16, code: UInt16, value: Int32) {
        switch touchProtocol {
        case .multitouchB:
            guard type == EvdevType.abs else { return }
            slots.apply(code: code, value: value, statistics: &statistics)
        case .multitouchA:
            contacts.apply(type: type, code: code, value: value)
        case .singleTouch:
            single.apply(type: type, code: code, value: value)
        case .semiMultitouch:
            return
        }
    }

    private mutating func loseTrust(forgetPositions: Bool) {
        switch touchProtocol {
        case .multitouchB: slots.distrustAll(forgetPositions: forgetPositions, statistics: &statistics)
        case .multitouchA: contacts.distrustAll(statistics: &statistics)
        case .singleTouch: single.distrust(forgetPositions: forgetPositions, statistics: &statistics)
        case .semiMultitouch: break
        }
    }

    private mutating func endFrame(at time: MonotonicInstant) -> Output? {
        frame.touches.removeAll(keepingCapacity: true)
        frame.time = time
        switch touchProtocol {
        case .multitouchB: slots.endFrame(into: &frame.touches, device: device, statistics: &statistics)
        case .multitouchA: contacts.endFrame(into: &frame.touches, device: device, statistics: &statistics)
        case .singleTouch: single.endFrame(into: &frame.touches, device: device, statistics: &statistics)
        case .semiMultitouch: break
        }
        guard !frame.touches.isEmpty else { return nil }
        statistics.frames += 1
        return .frame(frame)
    }
}

// MARK: - MT protocol B

/// The slots of a protocol B device, and what changed in each during the current frame.
private struct SlotDecoder: Sendable {
    struct Slot: Sendable {
        var trackingID: Int32 = -1
        var x: Int32 = 0
        var y: Int32 = 0
        var knowsX = false
        var knowsY = false
        /// The current touch was reported down, so the engine is following it.
        var reported = false
        var reportedAt = RawPoint(x: 0, y: 0)
        // This frame's changes:
        /// The reported touch lifted (or was replaced by a new tracking id) at `liftedAt`.
        var lifted = false
        var liftedAt = RawPoint(x: 0, y: 0)
        /// A new touch began; it is the current one if `trackingID >= 0`.
        var landed = false
        /// A touch began and ended within this frame, at `liftedAt`.
        var tapped = false
        var tappedTrusted = false

        var isActive: Bool { trackingID >= 0 }
        var knowsPosition: Bool { knowsX && knowsY }
    }

    var slots: [Slot]
    /// The slot the following MT events describe; -1 after an `ABS_MT_SLOT` beyond the device's slots. A stream
    /// that starts without `ABS_MT_SLOT` describes slot 0, as the kernel's initial state does. After lost events
    /// the last slot is kept: the kernel resends `ABS_MT_SLOT` only when the slot changes, and a wrong guess can
    /// only touch touches that are no longer trusted, or a new one whose position must be sent in full.
    var current = 0

    init(count: Int) { slots = Array(repeating: Slot(), count: count) }

    var reportedCount: Int { slots.reduce(0) { $0 + ($1.reported ? 1 : 0) } }

    mutating func apply(code: UInt16, value: Int32, statistics: inout EvdevFrameDecoder.Statistics) {
        if code == EvdevAbs.mtSlot {
            current = value >= 0 && Int(value) < slots.count ? Int(value) : -1
            if current < 0 { statistics.ignoredEvents += 1 }
            return
        }
        guard code == EvdevAbs.mtPositionX || code == EvdevAbs.mtPositionY || code == EvdevAbs.mtTrackingID else { return }
        guard current >= 0 else { statistics.ignoredEvents += 1; return }
        let i = current
        switch code {
        case EvdevAbs.mtPositionX:
            slots[i].x = value
            slots[i].knowsX = true
        case EvdevAbs.mtPositionY:
            slots[i].y = value
            slots[i].knowsY = true
        default:
            setTrackingID(value, slot: i)
        }
    }

    private mutating func setTrackingID(_ id: Int32, slot i: Int) {
        var s = slots[i]
        if id >= 0 && s.isActive && s.trackingID == id { return }  // a repeated value: nothing happened
        if s.isActive {
            // The current touch ends: by -1, or by a new tracking id replacing it without one.
            let here = RawPoint(x: s.x, y: s.y)
            if s.landed {
                s.tapped = true
                s.tappedTrusted = s.knowsPosition
                s.landed = false
                s.liftedAt = here
            } else if s.reported {
                s.lifted = true
                s.liftedAt = here
            }
            s.reported = false
        }
        s.trackingID = id < 0 ? -1 : id
        if id >= 0 { s.landed = true }
        slots[i] = s
    }

    mutating func distrustAll(forgetPositions: Bool, statistics: inout EvdevFrameDecoder.Statistics) {
        for i in slots.indices {
            if slots[i].isActive && (slots[i].reported || slots[i].landed) { statistics.untrustedTouches += 1 }
            slots[i].reported = false
            slots[i].landed = false
            slots[i].lifted = false
            slots[i].tapped = false
            if forgetPositions {
                slots[i].knowsX = false
                slots[i].knowsY = false
            }
        }
    }

    mutating func endFrame(into touches: inout [Touch], device: TouchDevice, statistics: inout EvdevFrameDecoder.Statistics) {
        for i in slots.indices {
            var s = slots[i]
            let id = Int32(i)
            if s.lifted {
                touches.append(Touch(id: id, phase: .up, raw: s.liftedAt, on: device))
            }
            if s.tapped {
                if s.tappedTrusted {
                    touches.append(Touch(id: id, phase: .down, raw: s.liftedAt, on: device))
                    touches.append(Touch(id: id, phase: .up, raw: s.liftedAt, on: device))
                } else {
                    statistics.untrustedTouches += 1
                }
            }
            let here = RawPoint(x: s.x, y: s.y)
            if s.landed && s.isActive {
                if s.knowsPosition {
                    touches.append(Touch(id: id, phase: .down, raw: here, on: device))
                    s.reported = true
                    s.reportedAt = here
                } else {
                    statistics.untrustedTouches += 1
                }
            } else if s.reported && here != s.reportedAt {
                touches.append(Touch(id: id, phase: .motion, raw: here, on: device))
                s.reportedAt = here
            }
            s.lifted = false
            s.landed = false
            s.tapped = false
            slots[i] = s
        }
    }
}

// MARK: - MT protocol A

/// Anonymous protocol A contacts, given identities by matching each frame's contacts to the previous frame's.
private struct ContactTracker: Sendable {
    struct Contact: Sendable {
        var x: Int32 = 0
        var y: Int32 = 0
        var trackingID: Int32 = -1
    }

    struct Tracked: Sendable {
        var id: Int32
        /// The device's own tracking id, when it gives one (-1 otherwise).
        var trackingID: Int32
        var at: RawPoint
        var reported: Bool
    }

    let capacity: Int
    let gated: Bool
    /// `BTN_TOUCH`: unknown at the start of a stream, so contacts count only once it is seen set.
    var touchKey = false
    var pending = Contact()
    var pendingHasX = false
    var pendingHasY = false
    var frameContacts: [Contact] = []
    var tracked: [Tracked] = []
    // Scratch space for matching, kept so that matching does not allocate.
    var nextTracked: [Tracked] = []
    var matchOfNew: [Int] = []
    var previousMatched: [Bool] = []

    init(capacity: Int, gated: Bool) {
        self.capacity = capacity
        self.gated = gated
        frameContacts.reserveCapacity(capacity)
        tracked.reserveCapacity(capacity)
        nextTracked.reserveCapacity(capacity)
        matchOfNew.reserveCapacity(capacity)
        previousMatched.reserveCapacity(capacity)
    }

    var reportedCount: Int { tracked.reduce(0) { $0 + ($1.reported ? 1 : 0) } }

    mutating func apply(type: UInt16, code: UInt16, value: Int32) {
        if type == EvdevType.key && code == EvdevKey.btnTouch {
            touchKey = value != 0
            return
        }
        guard type == EvdevType.abs else { return }
        switch code {
        case EvdevAbs.mtPositionX: pending.x = value; pendingHasX = true
        case EvdevAbs.mtPositionY: pending.y = value; pendingHasY = true
        case EvdevAbs.mtTrackingID: pending.trackingID = value
        default: break
        }
    }

    /// `SYN_MT_REPORT`: the pending contact is complete. An empty report (no contact) is how a frame says "none".
    mutating func endContact(statistics: inout EvdevFrameDecoder.Statistics) {
        defer { resetPending() }
        guard pendingHasX || pendingHasY else { return }
        guard pendingHasX && pendingHasY, frameContacts.count < capacity else {
            statistics.ignoredEvents += 1
            return
        }
        frameContacts.append(pending)
    }

    private mutating func resetPending() {
        pending = Contact()
        pendingHasX = false
        pendingHasY = false
    }

    mutating func discardFrame() {
        frameContacts.removeAll(keepingCapacity: true)
        resetPending()
    }

    mutating func distrustAll(statistics: inout EvdevFrameDecoder.Statistics) {
        for i in tracked.indices where tracked[i].reported {
            tracked[i].reported = false
            statistics.untrustedTouches += 1
        }
        discardFrame()
    }

    /// Matches this frame's contacts to the tracked ones and reports ups, motions and downs, in that order, so
    /// that a finger replacing another is judged as a new first touch.
    mutating func endFrame(into touches: inout [Touch], device: TouchDevice, statistics: inout EvdevFrameDecoder.Statistics) {
        if pendingHasX && pendingHasY { endContact(statistics: &statistics) }  // a last contact without its SYN_MT_REPORT
        resetPending()
        if gated && !touchKey { frameContacts.removeAll(keepingCapacity: true) }

        match(device: device)
        nextTracked.removeAll(keepingCapacity: true)
        for (p, old) in tracked.enumerated() where !previousMatched[p] && old.reported {
            touches.append(Touch(id: old.id, phase: .up, raw: old.at, on: device))
        }
        for (n, contact) in frameContacts.enumerated() {
            let here = RawPoint(x: contact.x, y: contact.y)
            let p = matchOfNew[n]
            if p >= 0 {
                var t = tracked[p]
                t.trackingID = contact.trackingID
                if t.reported && t.at != here { touches.append(Touch(id: t.id, phase: .motion, raw: here, on: device)) }
                t.at = here
                nextTracked.append(t)
            }
        }
        for (n, contact) in frameContacts.enumerated() where matchOfNew[n] < 0 {
            let here = RawPoint(x: contact.x, y: contact.y)
            let id = freeID()
            nextTracked.append(Tracked(id: id, trackingID: contact.trackingID, at: here, reported: true))
            touches.append(Touch(id: id, phase: .down, raw: here, on: device))
        }
        swap(&tracked, &nextTracked)
        frameContacts.removeAll(keepingCapacity: true)
    }

    /// Pairs new contacts with tracked ones: by tracking id where the device gives one, otherwise greedily by
    /// nearest distance (in millimetres where the size is known), never farther than a fifth of the diagonal.
    private mutating func match(device: TouchDevice) {
        matchOfNew.removeAll(keepingCapacity: true)
        previousMatched.removeAll(keepingCapacity: true)
        for _ in frameContacts { matchOfNew.append(-1) }
        for _ in tracked { previousMatched.append(false) }
        let size = device.deviceSize
        let (w, h) = (size.width.value, size.height.value)
        let limit = 0.2 * (w * w + h * h).squareRoot()
        func distance(_ a: RawPoint, _ b: RawPoint) -> Double {
            let dx = (device.x.fraction(of: a.x) - device.x.fraction(of: b.x)) * w
            let dy = (device.y.fraction(of: a.y) - device.y.fraction(of: b.y)) * h
            return (dx * dx + dy * dy).squareRoot()
        }
        for (n, contact) in frameContacts.enumerated() where contact.trackingID >= 0 {
            for (p, old) in tracked.enumerated() where !previousMatched[p] && old.trackingID == contact.trackingID {
                matchOfNew[n] = p
                previousMatched[p] = true
                break
            }
        }
        while true {
            var best: (n: Int, p: Int, d: Double)? = nil
            for (n, contact) in frameContacts.enumerated() where matchOfNew[n] < 0 {
                for (p, old) in tracked.enumerated() where !previousMatched[p] && (old.trackingID < 0 || contact.trackingID < 0) {
                    let d = distance(RawPoint(x: contact.x, y: contact.y), old.at)
                    if d <= limit, d < (best?.d ?? .infinity) { best = (n, p, d) }
                }
            }
            guard let pair = best else { return }
            matchOfNew[pair.n] = pair.p
            previousMatched[pair.p] = true
        }
    }

    private func freeID() -> Int32 {
        var id: Int32 = 0
        // Lifted contacts were reported up before any down of this frame, so their ids are free again.
        while nextTracked.contains(where: { $0.id == id }) { id += 1 }
        return id
    }
}

// MARK: - Single touch

/// A single-touch device: `ABS_X`/`ABS_Y`, down while `BTN_TOUCH` (or `BTN_TOOL_FINGER`) is set.
private struct SingleTouch: Sendable {
    let contactKey: UInt16
    var x: Int32 = 0
    var y: Int32 = 0
    var knowsX = false
    var knowsY = false
    var touching = false
    var reported = false
    var reportedAt = RawPoint(x: 0, y: 0)
    /// Down across lost events or since before the stream: ignored until it lifts.
    var untrusted = false

    mutating func apply(type: UInt16, code: UInt16, value: Int32) {
        switch (type, code) {
        case (EvdevType.abs, EvdevAbs.x): x = value; knowsX = true
        case (EvdevType.abs, EvdevAbs.y): y = value; knowsY = true
        case (EvdevType.key, contactKey): touching = value != 0
        default: break
        }
    }

    mutating func distrust(forgetPositions: Bool, statistics: inout EvdevFrameDecoder.Statistics) {
        if reported || touching {
            untrusted = true
            statistics.untrustedTouches += 1
        }
        reported = false
        if forgetPositions {
            knowsX = false
            knowsY = false
        }
    }

    mutating func endFrame(into touches: inout [Touch], device: TouchDevice, statistics: inout EvdevFrameDecoder.Statistics) {
        let here = RawPoint(x: x, y: y)
        if !touching {
            if reported { touches.append(Touch(id: 0, phase: .up, raw: reportedAt, on: device)) }
            reported = false
            untrusted = false
            return
        }
        if reported {
            if here != reportedAt {
                touches.append(Touch(id: 0, phase: .motion, raw: here, on: device))
                reportedAt = here
            }
        } else if !untrusted {
            if knowsX && knowsY {
                touches.append(Touch(id: 0, phase: .down, raw: here, on: device))
                reported = true
                reportedAt = here
            } else {
                untrusted = true
                statistics.untrustedTouches += 1
            }
        }
    }
}
