public import EdgeSwipeCore
public import EdgeSwipeProtocol

/// What a plot of a replay shows, collected as the replay runs: devices with their zones and finger paths,
/// transitions with their percent, releases, decisions and run-outs, and the swipes that went nowhere.
public struct PlotData: Sendable {
    /// A device as the engine sees it, with its shaded zones and everything the fingers did on it.
    public struct DeviceTrack: Sendable {
        public var device: TouchDevice
        /// The zone of each bound edge, as a fraction of the axis across it (the recognizer's own figure).
        public var zones: [(edge: Edge, fraction: Double)]
        public var fingers: [FingerPath] = []
        /// Where a gesture began (the tracked finger, when the recognizer judged its direction).
        public var began: [GestureMark] = []
    }

    /// One touch from landing to lift.
    public struct FingerPath: Sendable {
        public var touch: Int32
        public var points: [NormalizedPoint]
        public var landed: MonotonicInstant
        /// `nil` while down (a recording that ends with the finger down).
        public var lifted: TouchPhase?
    }

    public struct GestureMark: Sendable {
        public var time: MonotonicInstant
        public var location: NormalizedPoint
        public var label: String
    }

    /// One transition from `began` to its terminal phase.
    public struct TransitionTrack: Sendable {
        public var id: TransitionID
        /// `#3 present in overlay: shell → notifications`.
        public var title: String
        /// What drove it: `top edge`, `3-finger swipe right`, `requested`.
        public var trigger: String
        public var interactive: Bool
        public var began: MonotonicInstant
        /// Finger-driven (and caught) progress, in order; a new segment starts at each re-grab.
        public var segments: [[Sample]] = []
        /// Velocity (percent per second) while the finger drives it.
        public var velocities: [(time: MonotonicInstant, velocity: PercentPerSecond)] = []
        public var releases: [Release] = []
        /// Each run-out as clients receive it, and where a re-grab cut it short.
        public var runOuts: [(animation: AnimationInfo, caught: MonotonicInstant?)] = []
        public var regrabs: [Sample] = []
        /// `completed` or `cancelled`; `nil` when the recording ended first.
        public var outcome: PercentDrivenInteractiveTransition.Phase?
        public var ended: MonotonicInstant?
    }

    public struct Sample: Sendable {
        public var time: MonotonicInstant
        public var percent: Percent
    }

    /// A finger's release: where it let go, how fast, and what the decision made of it.
    public struct Release: Sendable {
        public var time: MonotonicInstant
        public var percent: Percent
        public var velocity: PercentPerSecond
        /// The engine's own projection and threshold; `nil` when the touch was cancelled (which always cancels).
        public var judgement: ReleaseJudgement?
        public var cancelled: Bool
    }

    /// A swipe that began and moved nothing, or a touch in a zone that failed to become one.
    public struct Attempt: Sendable {
        public enum Outcome: Sendable {
            case blocked(BlockReason)
            case failed(ScreenEdgePanRecognizer.FailureReason)
        }
        public var time: MonotonicInstant
        public var device: DeviceID
        public var gesture: String
        public var location: NormalizedPoint
        public var outcome: Outcome
    }

    public var devices: [DeviceTrack] = []
    public var transitions: [TransitionTrack] = []
    public var attempts: [Attempt] = []
    /// The first instant seen: the plot's time origin.
    public var start: MonotonicInstant?
    public var end: MonotonicInstant?
}

/// Builds ``PlotData`` from a replay: hand it every touch frame (before the engine takes it) and every engine
/// event. It reads only what the engine reported (the projection comes from the release's ``ReleaseJudgement``,
/// the run-out from its animation spec), so the plot shows the engine's numbers, not a second computation.
public struct PlotRecorder: Sendable {
    public private(set) var data = PlotData()
    private let configuration: EngineConfiguration
    /// Open finger paths: (device index, touch) -> path index.
    private var openPaths: [Key: Int] = [:]
    private var transitionIndex: [TransitionID: Int] = [:]

    private struct Key: Hashable { var device: Int; var touch: Int32 }

    public init(configuration: EngineConfiguration) {
        self.configuration = configuration
    }

    public mutating func record(_ frame: TouchFrame) {
        see(frame.time)
        guard let d = data.devices.lastIndex(where: { $0.device.id == frame.device }) else { return }
        for touch in frame.touches {
            let key = Key(device: d, touch: touch.id)
            switch touch.phase {
            case .down:
                openPaths[key] = data.devices[d].fingers.count
                data.devices[d].fingers.append(
                    PlotData.FingerPath(touch: touch.id, points: [touch.position], landed: frame.time, lifted: nil))
            case .motion:
                guard let p = openPaths[key] else { continue }
                data.devices[d].fingers[p].points.append(touch.position)
            case .up, .cancel:
                guard let p = openPaths.removeValue(forKey: key) else { continue }
                data.devices[d].fingers[p].lifted = touch.phase
            }
        }
    }

    public mutating func record(_ event: EngineEvent) {
        if let time = event.time { see(time) }
        switch event {
        case .device(let e):
            guard e.change == .added else { return }
            let kind = e.device.kind
            let recognizer = configuration.settings(for: kind).recognizer
            let zones = configuration.boundEdges(for: kind).members.map {
                (edge: $0, fraction: recognizer.zoneFraction(across: $0, on: e.device))
            }
            data.devices.append(PlotData.DeviceTrack(device: e.device, zones: zones))
        case .gesture(let g):
            record(g)
        case .transition(let t):
            record(t)
        case .interaction(let i):
            guard let index = transitionIndex[i.transition] else { return }
            switch i.phase {
            case .ended:
                // The finger's last stretch runs to the release, even if it rested there without moving.
                if let last = data.transitions[index].segments.indices.last {
                    data.transitions[index].segments[last].append(PlotData.Sample(time: i.time, percent: i.percent))
                }
                data.transitions[index].releases.append(PlotData.Release(
                    time: i.time, percent: i.percent, velocity: i.velocity, judgement: i.decision,
                    cancelled: i.cancelled ?? false))
            case .began:
                let sample = PlotData.Sample(time: i.time, percent: i.percent)
                data.transitions[index].regrabs.append(sample)
                if let last = data.transitions[index].runOuts.indices.last {
                    data.transitions[index].runOuts[last].caught = i.time
                }
                data.transitions[index].segments.append([sample])
            }
        case .lifecycle, .presentation, .state, .trace:
            return
        }
    }

    private mutating func see(_ time: MonotonicInstant) {
        if data.start.map({ time < $0 }) ?? true { data.start = time }
        if data.end.map({ time > $0 }) ?? true { data.end = time }
    }

    private mutating func record(_ g: GestureEvent) {
        guard let d = data.devices.lastIndex(where: { $0.device.id == g.device }) else { return }
        let name = GestureName.describe(g)
        switch g.state {
        case .began:
            data.devices[d].began.append(PlotData.GestureMark(time: g.time, location: g.location, label: name))
            if let blocked = g.blocked {
                data.attempts.append(PlotData.Attempt(
                    time: g.time, device: g.device, gesture: name, location: g.location, outcome: .blocked(blocked)))
            }
        case .failed:
            guard let reason = g.failure else { return }
            data.attempts.append(PlotData.Attempt(
                time: g.time, device: g.device, gesture: name, location: g.location, outcome: .failed(reason)))
        case .changed, .ended, .cancelled:
            return
        }
    }

    private mutating func record(_ t: TransitionEvent) {
        let index: Int
        if let i = transitionIndex[t.id] {
            index = i
        } else {
            index = data.transitions.count
            transitionIndex[t.id] = index
            let title = "#\(t.id.rawValue) \(t.operation.name) in \(t.container): \(t.from) → \(t.to)"
            let trigger =
                if let edge = t.edge { "\(edge.rawValue) edge" }
                else if let direction = t.swipe { "\(t.swipeFingers ?? 0)-finger swipe \(direction.rawValue)" }
                else if !t.interactive { "requested" }
                else { "driven" }
            data.transitions.append(PlotData.TransitionTrack(id: t.id, title: title, trigger: trigger, interactive: t.interactive, began: t.time))
        }
        let sample = PlotData.Sample(time: t.time, percent: t.percent)
        switch t.phase {
        case .began, .changed:
            if data.transitions[index].segments.isEmpty { data.transitions[index].segments.append([]) }
            data.transitions[index].segments[data.transitions[index].segments.count - 1].append(sample)
            if t.phase == .changed { data.transitions[index].velocities.append((t.time, t.velocity)) }
        case .finishing, .cancelling:
            if let spec = t.animation { data.transitions[index].runOuts.append((AnimationInfo(spec), nil)) }
        case .completed, .cancelled:
            data.transitions[index].outcome = t.phase
            data.transitions[index].ended = t.time
        }
    }
}

/// How a plot names a gesture: in one place, so that a new kind of gesture is one more case here.
public enum GestureName {
    public static func describe(_ g: GestureEvent) -> String {
        switch g.trigger {
        case .edge(let edge): "\(edge.rawValue) edge, \(g.fingers) finger\(g.fingers == 1 ? "" : "s")"
        case .swipe(let direction): "\(g.fingers)-finger swipe \(direction.rawValue)"
        }
    }
}

extension PlotData.Attempt.Outcome {
    /// A sentence a person reads without the docs: what happened, and what that usually means.
    public var explanation: String {
        switch self {
        case .blocked(let reason):
            switch reason {
            case .noApplicableBinding:
                "blocked: no applicable binding (the edge is bound, but nothing can run now: the root of a stack, "
                    + "the last tab, nothing presented, or a busy container)"
            }
        case .failed(let reason):
            switch reason {
            case .outsideZones: "failed: landed outside every edge zone"
            case .notInward: "failed: the first motion was not inward (along the edge, toward a corner, or outward)"
            case .edgeScroll: "failed: the first motion ran along the touchpad's scroll edge (edge scrolling)"
            case .lifted: "failed: lifted before it moved far enough to be judged"
            case .touchCancelled: "failed: the touch was cancelled before it was judged"
            case .eventsLost: "failed: events were lost (or the device went away) before it was judged"
            case .noBinding: "failed: no binding on this edge for this kind of device and number of fingers"
            case .swipe: "failed: the touches were a multi-finger swipe (a swipe binding wants as many fingers)"
            }
        }
    }

    /// `blocked` or `failed`, for the legend and the marker's class.
    public var kind: String {
        switch self {
        case .blocked: "blocked"
        case .failed: "failed"
        }
    }
}
