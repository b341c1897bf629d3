public import EdgeSwipeClient
public import EdgeSwipeProtocol

/// What the overlay draws on one output at one instant: marks in the output's unit square, bottom first. A value,
/// so that a frame is drawn only when it differs from the one on screen.
public struct OverlayFrame: Hashable, Sendable {
    public var marks: [OverlayMark] = []
    public var isEmpty: Bool { marks.isEmpty }
    public init(marks: [OverlayMark] = []) { self.marks = marks }
}

public enum OverlayMark: Hashable, Sendable {
    /// The dimming layer under a custom presentation: black over the whole output at this alpha.
    case dimming(alpha: Double)
    /// A modal presentation's presented scene, as a translucent panel where the stream places it.
    case panel(OverlayPanel)
    /// The indicator under the finger, at an edge.
    case indicator(EdgeIndicator)
}

/// A presented scene drawn as a panel: a sheet that says which scene the gesture brings in, with no content of its
/// own (the overlay is feedback, not a shell).
public struct OverlayPanel: Hashable, Sendable {
    /// In the output's unit square (the container's, as the stream gives it).
    public var frame: NormalizedRect
    public var alpha: Double
    /// The scene's name.
    public var label: String
}

/// The indicator at the edge a gesture came from.
public struct EdgeIndicator: Hashable, Sendable {
    public enum Style: Hashable, Sendable {
        /// A gesture that drives a transition, with its finger count (1 for an edge gesture).
        case transition(fingers: Int)
        /// A gesture that drives nothing: its rubber band.
        case blocked(fingers: Int)
    }
    /// The edge it emerges from: the gesture's edge, or for a multi-finger swipe the edge its motion comes from.
    public var edge: Edge
    /// Where along that edge, 0...1 (x for the top and bottom edges, y for the left and right).
    public var along: Double
    /// How far it reaches out: 1 at the release threshold (a transition's) or at the rubber band's limit; more
    /// past it.
    public var reach: Double
    /// How far the transition has gone, as a fraction of the output's extent across its edge (its percent: on a
    /// touchscreen, the finger's travel across the screen); the painter's depth follows it up to a limit. 0 for a
    /// rubber band, which ``reach`` measures.
    public var travel: Double
    /// 0: a release would cancel; 1: it would finish (in between while a re-grab blends).
    public var commit: Double
    public var alpha: Double
    public var style: Style

    /// `a` at 0, `b` at 1, `b`'s edge and style.
    static func blend(_ a: EdgeIndicator, _ b: EdgeIndicator, _ f: Double) -> EdgeIndicator {
        func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * f }
        return EdgeIndicator(
            edge: b.edge, along: a.edge == b.edge ? mix(a.along, b.along) : b.along, reach: mix(a.reach, b.reach),
            travel: mix(a.travel, b.travel), commit: mix(a.commit, b.commit), alpha: mix(a.alpha, b.alpha), style: b.style)
    }

    /// The same, `f` as opaque (0...1).
    func faded(_ f: Double) -> EdgeIndicator {
        var i = self
        i.alpha *= f
        return i
    }
}

/// The overlay's view of the stream: ``StreamState`` (edgeswipe.js's model, ported) plus what only a drawing of the
/// finger needs (where along the edge each gesture is, and a re-grab's blend), turned into a frame per output at
/// any instant. Pure: the time is passed in as the daemon's microseconds (`CLOCK_MONOTONIC`, ours too).
public struct OverlayModel: Sendable {
    public private(set) var stream = StreamState()
    public var settings: OverlaySettings

    /// What the overlay remembers of a transition besides the stream's model.
    struct Track: Hashable, Sendable {
        /// The finger's place along the edge, from its latest gesture message.
        var along: Double?
        var fingers = 1
        /// A touch caught the run-out that started at `runOut`: the indicator as it was drawn then, blended into the
        /// finger's over ``regrabBlendUS``.
        var regrab: Regrab?
        /// The last change of whether a release would finish, eased over ``commitBlendUS`` (a colour that snaps
        /// reads as a flicker when the projection hovers at the threshold).
        var commit: CommitChange?
    }

    struct CommitChange: Hashable, Sendable {
        var from: Double
        var to: Double
        var atUS: UInt64

        func value(atUS nowUS: UInt64) -> Double {
            let f = Double(nowUS - min(nowUS, atUS)) / Double(OverlayModel.commitBlendUS)
            return from + (to - from) * OverlayModel.smoothstep(0, 1, f)
        }
    }

    struct Regrab: Hashable, Sendable {
        var atUS: UInt64
        var indicator: EdgeIndicator
        /// The caught run-out's start, so that a catch's later messages do not capture it again.
        var runOut: UInt64
    }

    /// What one transition draws at one instant.
    struct Drawing: Hashable, Sendable {
        var dimming = 0.0
        var panel: OverlayPanel?
        var indicator: EdgeIndicator?
        var device: UInt32?

        /// Whether nothing of it shows (what ``OverlayModel/frame(atUS:output:outputs:)`` would leave out).
        var isEmpty: Bool {
            dimming <= 0.001 && (panel.map { $0.alpha <= 0.001 } ?? true) && (indicator.map { $0.alpha <= 0.002 || $0.reach <= 0.002 } ?? true)
        }

        func faded(_ f: Double) -> Drawing {
            var d = self
            d.dimming *= f
            d.panel?.alpha *= f
            d.indicator = indicator?.faded(f)
            return d
        }
    }

    /// A transition that ended while something of it was drawn (a presented sheet where its run-out left it, the
    /// dimming under it): that drawing, fading out over ``departureFadeUS`` from where it was, so that nothing
    /// vanishes between two frames and nothing stays at rest.
    struct Departure: Hashable, Sendable {
        var atUS: UInt64
        var drawing: Drawing

        func drawing(atUS nowUS: UInt64) -> Drawing? {
            guard nowUS < atUS + OverlayModel.departureFadeUS else { return nil }
            let f = Double(nowUS - min(nowUS, atUS)) / Double(OverlayModel.departureFadeUS)
            return drawing.faded(1 - OverlayModel.smoothstep(0, 1, f))
        }
    }

    private(set) var tracks: [UInt64: Track] = [:]
    private(set) var departures: [UInt64: Departure] = [:]
    /// The rubber band's limit as the daemon is configured (the `rubber_band_limit` of `hello`'s configuration, then
    /// of each reloaded `config`), which a blocked swipe's reach is measured against; `nil`, and no band drawn, when
    /// the daemon sends none (`overscroll = "none"`, or a server older than the field) or one that is not a positive
    /// number.
    public private(set) var rubberBandLimit: Double?

    /// How long a re-grab blends the drawing from where it was into the finger's: no jump, yet under the finger
    /// within a few frames.
    public static let regrabBlendUS: UInt64 = 150_000
    /// How long the indicator takes to turn the accent colour (or back) when the release projection crosses the
    /// threshold.
    public static let commitBlendUS: UInt64 = 90_000
    /// How long what a transition drew at its end takes to fade out: long enough to be seen to go (a run-out can
    /// last 105 ms, and a sheet that vanished at its end read as vanishing on release), short enough not to linger.
    public static let departureFadeUS: UInt64 = 220_000
    /// Tracks kept at most (transitions a gesture named and the stream never ended, after a lost connection).
    static let maxTracks = 64

    public init(settings: OverlaySettings = .defaults) {
        self.settings = settings
    }

    // MARK: Input

    /// Takes one message, arrived at `nowUS`.
    public mutating func apply(_ message: ServerMessage, atUS nowUS: UInt64) {
        if let id = caughtTransition(message), let t = stream.transitions[id], t.phase.isRunningOut,
           let runOut = t.animation?.startTimeUS, tracks[id]?.regrab?.runOut != runOut,
           let drawn = indicator(of: t, atUS: nowUS)
        {
            tracks[id, default: Track()].regrab = Regrab(atUS: nowUS, indicator: drawn, runOut: runOut)
        }
        let drawnCommit: Double? = {
            guard case .transition(let m) = message, let t = stream.transitions[m.id] else { return nil }
            return tracks[m.id]?.commit?.value(atUS: nowUS) ?? Self.commitTarget(of: t)
        }()
        // A transition's end: what it draws now fades out from here (the stream forgets it, and what it presented
        // stays at rest, which the overlay never draws).
        if case .transition(let m) = message, m.phase.isTerminal, let t = stream.transitions[m.id] {
            let drawn = drawing(of: t, atUS: nowUS)
            if !drawn.isEmpty { departures[m.id] = Departure(atUS: nowUS, drawing: drawn) }
        }
        if !departures.isEmpty {
            departures = departures.filter { nowUS < $0.value.atUS + Self.departureFadeUS }
            if departures.count > Self.maxTracks {
                for id in departures.keys.sorted().prefix(departures.count - Self.maxTracks) { departures[id] = nil }
            }
        }
        stream.apply(message)
        switch message {
        case .hello(let m):
            tracks.removeAll()
            departures.removeAll()
            rubberBandLimit = Self.usableLimit(m.config.rubberBandLimit)
        case .config(let m):
            if m.result == .reloaded, let config = m.config { rubberBandLimit = Self.usableLimit(config.rubberBandLimit) }
        case .gesture(let g):
            if let id = g.transition {
                tracks[id, default: Track()].along = Self.along(g)
                tracks[id, default: Track()].fingers = g.fingers
            }
        case .transition(let m):
            if m.phase.isTerminal {
                tracks[m.id] = nil
            } else if let t = stream.transitions[m.id] {
                let target = Self.commitTarget(of: t)
                if tracks[m.id]?.commit?.to != target {
                    tracks[m.id, default: Track()].commit = CommitChange(from: drawnCommit ?? target, to: target, atUS: nowUS)
                }
            }
        case .lifecycle, .presentation, .interaction, .state, .device, .error, .reply, .goodbye, .unknown:
            break
        }
        if tracks.count > Self.maxTracks {
            for id in tracks.keys.sorted().prefix(tracks.count - Self.maxTracks) where stream.transitions[id] == nil { tracks[id] = nil }
        }
    }

    /// The connection to the daemon dropped: nothing it said is moving any more, so nothing is drawn until the
    /// next `hello`.
    public mutating func disconnected() {
        stream = StreamState()
        tracks.removeAll()
        departures.removeAll()
        rubberBandLimit = nil
    }

    /// The transition whose run-out `message` catches, if it is one of a catch's first messages: the new gesture's
    /// `began`, the coordinator's interaction `began`, or the transition's `changed`.
    private func caughtTransition(_ message: ServerMessage) -> UInt64? {
        switch message {
        case .gesture(let g) where g.state == .began: g.transition
        case .interaction(let i) where i.phase == .began: i.transition
        case .transition(let m) where m.phase == .changed: m.id
        default: nil
        }
    }

    /// Where along its edge a gesture is: the finger's (or the fingers' centroid's) coordinate along it.
    static func along(_ g: GestureMessage) -> Double {
        let edge = g.edge ?? g.direction.map(Self.originEdge) ?? .left
        return edge.isHorizontal ? g.location.y : g.location.x
    }

    /// The edge a swipe's motion comes from: fingers moving left bring in what lies to the right.
    static func originEdge(_ d: SwipeDirection) -> Edge {
        switch d {
        case .left: .right
        case .right: .left
        case .up: .bottom
        case .down: .top
        }
    }

    // MARK: Output

    /// What to draw on `output` (its `wl_output` name, if known) at `nowUS`; `outputs` are all the outputs the
    /// overlay draws on (a gesture whose device drives none of them is drawn on each).
    public func frame(atUS nowUS: UInt64, output: String?, outputs: Set<String>) -> OverlayFrame {
        var drawings: [Drawing] = []
        for id in departures.keys.sorted() {
            if let d = departures[id]?.drawing(atUS: nowUS) { drawings.append(d) }
        }
        for id in stream.transitions.keys.sorted() {
            if let t = stream.transitions[id] { drawings.append(drawing(of: t, atUS: nowUS)) }
        }
        var dimming = 0.0
        var panels: [OverlayPanel] = []
        var indicators: [EdgeIndicator] = []
        for d in drawings where shows(device: d.device, on: output, outputs: outputs) {
            dimming = max(dimming, min(1, d.dimming))
            if let p = d.panel, p.alpha > 0.001 { panels.append(p) }
            if let i = d.indicator, i.alpha > 0.002, i.reach > 0.002 { indicators.append(i) }
        }
        for device in stream.gestures.keys.sorted() {
            guard let g = stream.gestures[device], shows(device: g.device, on: output, outputs: outputs),
                  let i = rubberBand(g, atUS: nowUS) else { continue }
            indicators.append(i)
        }
        var marks: [OverlayMark] = []
        if dimming > 0.001 { marks.append(.dimming(alpha: dimming)) }
        marks += panels.map(OverlayMark.panel)
        marks += indicators.map(OverlayMark.indicator)
        return OverlayFrame(marks: marks)
    }

    /// What transition `t` draws at `nowUS`: its indicator, and for a presentation what the gesture brings in.
    ///
    /// The overlay draws nothing at rest, so a presentation is drawn as its change from rest (percent 0): the
    /// presented scene's sheet only when the gesture brings it on screen (a scene already on screen at 0 is the
    /// daemon's resting state, drawn by nobody here: a dismissal shows its indicator alone, where drawing the sheet
    /// would make it appear from nowhere), and the dimming by as much as it rose above its value at 0.
    func drawing(of t: StreamState.Transition, atUS nowUS: UInt64) -> Drawing {
        var d = Drawing(device: t.device)
        if t.presentationStyle != nil {
            let s = t.scenes(atTimeUS: nowUS)
            let rest = t.geometry(atPercent: 0)
            let presentedIsTo = s.to.zIndex >= s.from.zIndex
            let presented = presentedIsTo ? s.to : s.from
            let atRest = presentedIsTo ? rest.to : rest.from
            if let dim = s.dimmingAlpha { d.dimming = max(0, min(1, dim) - min(1, max(0, rest.dimmingAlpha ?? 0))) }
            if !Self.isVisible(atRest), presented.onStage, presented.alpha > 0.001 {
                d.panel = OverlayPanel(frame: presented.frame, alpha: min(1, presented.alpha), label: presented.scene)
            }
        }
        d.indicator = indicator(of: t, atUS: nowUS)
        return d
    }

    /// Whether a scene shows anything on the output: on stage, not transparent, and within the unit square.
    static func isVisible(_ scene: SceneGeometryInfo) -> Bool {
        let f = scene.frame
        return scene.onStage && scene.alpha > 0.001 && f.x < 1 && f.y < 1 && f.x + f.width > 0 && f.y + f.height > 0
            && f.width > 0 && f.height > 0
    }

    /// Whether the drawing changes with time alone at `nowUS` (a run-out, a spring back, a re-grab's blend, a
    /// departure's fade): frames are asked for only then, or when a message changes what is drawn.
    public func isMoving(atUS nowUS: UInt64) -> Bool {
        for t in stream.transitions.values {
            if let a = t.animation, nowUS < a.endTimeUS { return true }
            if let r = tracks[t.id]?.regrab, nowUS < r.atUS + Self.regrabBlendUS { return true }
            if let c = tracks[t.id]?.commit, c.from != c.to, nowUS < c.atUS + Self.commitBlendUS { return true }
        }
        for d in departures.values where nowUS < d.atUS + Self.departureFadeUS { return true }
        for g in stream.gestures.values where g.blocked != nil {
            if let a = g.animation, nowUS < a.endTimeUS { return true }
        }
        return false
    }

    /// Whether the gesture of `device` is drawn on `output`.
    func shows(device: UInt32?, on output: String?, outputs: Set<String>) -> Bool {
        switch settings.outputs {
        case .all:
            return true
        case .named(let name):
            return output == name
        case .auto:
            guard let drives = device.flatMap({ stream.devices[$0]?.output }), outputs.contains(drives) else { return true }
            return output == drives
        }
    }

    /// The indicator of transition `t` at `nowUS`, or `nil` for a transition no gesture drives.
    func indicator(of t: StreamState.Transition, atUS nowUS: UInt64) -> EdgeIndicator? {
        guard let edge = t.edge ?? t.swipeDirection.map(Self.originEdge) else { return nil }
        let track = tracks[t.id]
        let p = t.percent(atTimeUS: nowUS)
        let threshold = Self.threshold(of: t)
        var alpha = Self.smoothstep(0, 0.04, p)
        switch t.phase {
        case .began, .changed, .cancelling:
            break
        case .finishing:
            // Launched: it fades as the run-out carries the transition home.
            if let a = t.animation, abs(a.toPercent - a.fromPercent) > 1e-9 {
                alpha *= 1 - Self.smoothstep(0, 1, (p - a.fromPercent) / (a.toPercent - a.fromPercent))
            } else {
                alpha = 0
            }
        case .completed, .cancelled:
            return nil
        }
        let commit = track?.commit?.value(atUS: nowUS) ?? Self.commitTarget(of: t)
        let fingers = t.swipeFingers ?? track?.fingers ?? 1
        var drawn = EdgeIndicator(
            edge: edge, along: track?.along ?? 0.5, reach: max(0, p) / threshold, travel: max(0, p), commit: commit, alpha: alpha,
            style: .transition(fingers: fingers))
        if let r = track?.regrab, nowUS < r.atUS + Self.regrabBlendUS, !t.phase.isRunningOut {
            let f = Double(nowUS - min(nowUS, r.atUS)) / Double(Self.regrabBlendUS)
            drawn = EdgeIndicator.blend(r.indicator, drawn, Self.smoothstep(0, 1, f))
        }
        return drawn
    }

    /// The percent a release must carry `t` to, to finish: the engine's, from the stream (0.5 from servers without it).
    static func threshold(of t: StreamState.Transition) -> Double { max(0.05, t.release?.threshold ?? 0.5) }

    /// 1 when a release would finish `t` (while a finger drives it, the engine's projection says; in a run-out, its
    /// direction), else 0.
    static func commitTarget(of t: StreamState.Transition) -> Double {
        switch t.phase {
        case .began, .changed: (t.release?.finishes ?? (t.percent >= threshold(of: t))) ? 1 : 0
        case .finishing, .completed: 1
        case .cancelling, .cancelled: 0
        }
    }

    /// A blocked gesture's rubber band at `nowUS`: the finger's displacement while it is down, then the spring back
    /// to 0 (as the web page draws it).
    func rubberBand(_ g: GestureMessage, atUS nowUS: UInt64) -> EdgeIndicator? {
        guard g.blocked != nil, let limit = rubberBandLimit, let edge = g.edge ?? g.direction.map(Self.originEdge) else { return nil }
        let amount: Double =
            if let a = g.animation { a.percent(atTimeUS: nowUS) } else if g.state == .began || g.state == .changed { g.overscroll ?? 0 } else { 0 }
        guard amount > 0.0001 else { return nil }
        return EdgeIndicator(
            edge: edge, along: Self.along(g), reach: amount / limit, travel: 0, commit: 0, alpha: 1,
            style: .blocked(fingers: g.fingers))
    }

    /// A limit the band can be measured against: a positive finite number.
    static func usableLimit(_ limit: Double?) -> Double? {
        guard let limit, limit.isFinite, limit > 0 else { return nil }
        return limit
    }

    /// 0 below `a`, 1 above `b`, Hermite in between.
    static func smoothstep(_ a: Double, _ b: Double, _ x: Double) -> Double {
        let t = min(1, max(0, (x - a) / (b - a)))
        return t * t * (3 - 2 * t)
    }
}
