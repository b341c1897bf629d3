import CCairo
import CWayland
import EdgeSwipeClient
import EdgeSwipeProtocol
import EdgeSwipeSessionModel
import EdgeSwipeSystem
import Glibc
import Logging

/// Feedback under the finger, drawn on the real desktop: an `overlay`-layer surface of wlr-layer-shell on each
/// output a gesture shows on, which never takes input (an empty input region, no keyboard interactivity), drawn
/// into `wl_shm` buffers with cairo from ``OverlayModel``'s frames.
///
/// It draws only while something moves: a message that changes the picture, or a run-out, spring or blend in
/// flight, each frame paced by the compositor's frame callbacks. At rest it has no surface and no buffer at all;
/// a gesture creates the surfaces it needs, and they go once the run-out has ended.
///
/// Owned by the Wayland thread (``WaylandThread``), like every Wayland object it makes: the session's event loop
/// never touches it, it hands observations over and goes on, so no effect ever waits on a frame being painted
/// (hostile-4 s11). The model outlives connections: when the compositor goes and comes back, the overlay binds its
/// globals again (``attach(to:)``) and goes on drawing what the stream says.
final class Overlay {
    /// Why a compositor without the protocol gets no overlay, said once.
    static let unsupportedHint =
        "the compositor offers no zwlr_layer_shell_v1 (GNOME does not): no feedback is drawn under the finger; the effects keep working"

    /// At most this many marks are painted per frame: thousands of running transitions (a hostile stream) would
    /// otherwise make every frame cost tens of milliseconds of cairo; what is left out is what lies underneath.
    static let maxMarks = 32

    private let logger: Logger
    private var model: OverlayModel
    private let painter: OverlayPainter
    private var bound: Bound?
    /// When the earliest message not yet shown arrived (the latency statistic's start).
    private var unshownSince: UInt64?
    private(set) var statistics = OverlayStatistics()

    /// The globals the overlay draws with, on one connection.
    final class Bound {
        let connection: WaylandConnection
        let compositor: WaylandObject<CompositorKind>
        let shm: WaylandObject<ShmKind>
        let layerShell: WaylandObject<LayerShellKind>
        /// `wp_presentation`, where the compositor offers it: when each new picture reached the screen.
        let presentation: WaylandObject<PresentationKind>?
        let presentationClock = PresentationClock()
        var outputs: [UInt32: OverlayOutput] = [:]

        init(
            connection: WaylandConnection, compositor: WaylandObject<CompositorKind>, shm: WaylandObject<ShmKind>,
            layerShell: WaylandObject<LayerShellKind>, presentation: WaylandObject<PresentationKind>?
        ) {
            self.connection = connection
            self.compositor = compositor
            self.shm = shm
            self.layerShell = layerShell
            self.presentation = presentation
            if let presentation {
                wp_presentation_add_listener(presentation.proxy, Overlay.presentationListener, presentation.retaining(presentationClock))
            }
        }

        /// Where feedback is worth asking for: only times on our clock (the stream's arrivals are on
        /// `CLOCK_MONOTONIC`), or on `CLOCK_MONOTONIC_RAW`, which counts the same ticks and is brought onto ours
        /// (``MonotonicClock/microseconds(fromRaw:)``), can be set against a line's arrival; until `clock_id` has
        /// come, or on another clock (the wall clock jumps), none is asked.
        var timedPresentation: (object: WaylandObject<PresentationKind>, clock: UInt32)? {
            guard let presentation, let clock = presentationClock.id,
                clock == UInt32(bitPattern: MonotonicClock.clockID) || clock == UInt32(bitPattern: MonotonicClock.rawClockID)
            else { return nil }
            return (presentation, clock)
        }
    }

    /// Loads cairo; an error (naming the library) where it cannot.
    init(settings: OverlaySettings, logger: Logger) throws(WaylandError) {
        // cairo is loaded here, not when the client starts (Sources/CCairo/include/CCairo.h).
        try OverlayPainter.loadCairo()
        self.logger = logger
        self.model = OverlayModel(settings: settings)
        self.painter = OverlayPainter(accent: settings.accent)
    }

    /// Whether the overlay has what it draws with on the current connection.
    var isAttached: Bool { bound != nil }

    /// Binds what the overlay needs on `connection` (whose first globals have arrived); an error saying what is
    /// missing where the compositor lacks it.
    func attach(to connection: WaylandConnection) throws(WaylandError) {
        bound = nil
        guard let shellGlobal = connection.global("zwlr_layer_shell_v1") else { throw WaylandError(Self.unsupportedHint) }
        guard let compositorGlobal = connection.global("wl_compositor") else { throw WaylandError("the compositor offers no wl_compositor") }
        guard let shmGlobal = connection.global("wl_shm") else { throw WaylandError("the compositor offers no wl_shm") }
        guard compositorGlobal.version >= 3 else {
            throw WaylandError("the compositor's wl_compositor is version \(compositorGlobal.version); the overlay needs 3 (buffer scale)")
        }
        // Version 4 brings wl_surface.damage_buffer; on 3 the damage is given in surface coordinates (draw()).
        guard let compositor = connection.bind(compositorGlobal, CompositorKind.self, cwayland_wl_compositor_interface(), version: 4) else {
            throw WaylandError("cannot bind wl_compositor")
        }
        guard let shm = connection.bind(shmGlobal, ShmKind.self, cwayland_wl_shm_interface(), version: 1) else { throw WaylandError("cannot bind wl_shm") }
        guard let layerShell = connection.bind(shellGlobal, LayerShellKind.self, cwayland_zwlr_layer_shell_v1_interface(), version: 1) else {
            throw WaylandError("cannot bind zwlr_layer_shell_v1")
        }
        // Optional: without it the overlay draws the same, and only the line-to-presentation figure is missing.
        let presentation = connection.global("wp_presentation").flatMap {
            connection.bind($0, PresentationKind.self, cwayland_wp_presentation_interface(), version: 1)
        }
        bound = Bound(connection: connection, compositor: compositor, shm: shm, layerShell: layerShell, presentation: presentation)
        // The outputs' names and scales arrive as events: bind them now, so that they are known at the first touch.
        refreshOutputs()
    }

    /// Lets go of every Wayland object (the connection is going); the model stays.
    func detach() { bound = nil }

    /// New settings, from a reload.
    func replace(_ settings: OverlaySettings) { model.settings = settings }

    var settings: OverlaySettings { model.settings }

    /// One observation of the daemon client, handed over by the event loop: the model follows it; ``pump()`` draws.
    func handle(_ observation: EdgeSwipeClient.Observation, receivedAtUS now: UInt64) {
        switch observation {
        case .message(let message, _):
            switch message {
            case .hello, .gesture, .transition, .device, .state:
                unshownSince = unshownSince ?? now
            case .lifecycle, .presentation, .interaction, .config, .error, .reply, .goodbye, .unknown:
                break
            }
            model.apply(message, atUS: now)
        case .disconnected:
            model.disconnected()
        case .waiting:
            // Nothing to draw: a disconnection before it has put the model at rest.
            break
        }
    }

    /// The model lost messages (the hand-over queue overflowed): it starts again from rest.
    func resynchronize() {
        model.disconnected()
        unshownSince = nil
    }

    /// The globals changed: outputs came or went.
    func globalsChanged() { refreshOutputs() }

    /// Brings every output's surface up to date with the model at this instant: after every dispatch (a configure,
    /// a frame callback, a released buffer) and every hand-over of observations. The caller flushes.
    func pump() {
        guard let bound else { return }
        let now = MonotonicClock.now().microseconds
        let names = Set(bound.outputs.values.compactMap(\.info.name))
        var drew = false
        let moving = model.isMoving(atUS: now)
        for key in bound.outputs.keys.sorted() {
            guard let output = bound.outputs[key] else { continue }
            var frame = model.frame(atUS: now, output: output.info.name, outputs: names)
            if frame.marks.count > Self.maxMarks { frame.marks.removeLast(frame.marks.count - Self.maxMarks) }
            drew = update(output, in: bound, frame: frame, moving: moving, now: now) || drew
        }
        let waiting = bound.outputs.values.contains { o in o.surface.map { $0.state.awaitingFrame || !$0.state.configured } ?? false }
        if !drew, !waiting {
            // Nothing was left to show: the next message starts the clock again.
            unshownSince = nil
        }
        for output in bound.outputs.values {
            guard let surface = output.surface else { continue }
            for ms in surface.state.frameIntervalsMS { statistics.frameIntervalMS.append(UInt64(ms)) }
            surface.state.frameIntervalsMS.removeAll(keepingCapacity: true)
            collectFeedback(of: surface)
        }
    }

    /// Draws `frame` on `output` if it changed and the compositor is ready for a frame; creates and destroys the
    /// surface as the frame needs one. Whether a frame was committed.
    private func update(_ output: OverlayOutput, in bound: Bound, frame: OverlayFrame, moving: Bool, now: UInt64) -> Bool {
        guard let surface = output.surface else {
            if !frame.isEmpty { output.surface = makeSurface(on: output, in: bound) }
            return false
        }
        if surface.state.closed || frame.isEmpty {
            output.surface = nil
            return false
        }
        guard surface.state.configured, !surface.state.awaitingFrame else { return false }
        if surface.state.resized {
            // A new size needs a whole new picture.
            surface.state.resized = false
            surface.shown = nil
        }
        if frame == surface.shown {
            // A run-out whose picture did not change this frame still needs the next one; a commit with a pixel of
            // damage makes sure the compositor paints a frame (and so calls back), as it paints only what changed.
            if moving {
                surface.damage(x: 0, y: 0, width: 1, height: 1)
                requestFrame(surface, in: bound)
                wl_surface_commit(surface.surface.proxy)
            }
            return false
        }
        guard draw(frame, on: surface, in: bound) else { return false }
        let committed = MonotonicClock.now().microseconds
        statistics.frames += 1
        // The presentation seam (FramePresentations): each new picture's commit, with the line it first shows; the
        // commit's wp_presentation feedback, where requested, reports when the screen showed it.
        statistics.presentations.committed(UInt64(statistics.frames), lineArrivalUS: unshownSince, atUS: committed)
        if let since = unshownSince {
            statistics.latency.append(committed - min(committed, since))
            unshownSince = nil
        }
        return true
    }

    /// Binds the outputs the compositor announced that are not bound yet, and lets go of those it withdrew.
    private func refreshOutputs() {
        guard let bound else { return }
        let announced = bound.connection.globals.filter { $0.interface == "wl_output" }
        for name in bound.outputs.keys where !announced.contains(where: { $0.name == name }) {
            bound.outputs[name] = nil
        }
        for global in announced where bound.outputs[global.name] == nil {
            guard let object = bound.connection.bind(global, OutputKind.self, cwayland_wl_output_interface(), version: 4) else { continue }
            let info = OutputInfo()
            wl_output_add_listener(object.proxy, Self.outputListener, object.retaining(info))
            bound.outputs[global.name] = OverlayOutput(object: object, info: info)
        }
    }

    private func makeSurface(on output: OverlayOutput, in bound: Bound) -> OverlaySurface? {
        let display = bound.connection.display
        guard let surface = WaylandObject<SurfaceKind>(wl_compositor_create_surface(bound.compositor.proxy), on: display) else { return nil }
        // An empty input region: every touch and click goes to what lies beneath.
        if let region = WaylandObject<RegionKind>(wl_compositor_create_region(bound.compositor.proxy), on: display) {
            wl_surface_set_input_region(surface.proxy, region.proxy)
        }
        let scale = output.info.scale
        wl_surface_set_buffer_scale(surface.proxy, scale)
        guard let layer = WaylandObject<LayerSurfaceKind>(
            zwlr_layer_shell_v1_get_layer_surface(
                bound.layerShell.proxy, surface.proxy, output.object.proxy, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue, "edgeswipe-overlay"),
            on: display, keeping: [surface])
        else { return nil }
        let state = SurfaceState()
        zwlr_layer_surface_v1_add_listener(layer.proxy, Self.layerListener, layer.retaining(state))
        let anchors = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue
            | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue
        zwlr_layer_surface_v1_set_anchor(layer.proxy, anchors)
        zwlr_layer_surface_v1_set_size(layer.proxy, 0, 0)
        // Over panels and their exclusive zones too, and never the keyboard's focus.
        zwlr_layer_surface_v1_set_exclusive_zone(layer.proxy, -1)
        zwlr_layer_surface_v1_set_keyboard_interactivity(layer.proxy, 0)
        // The first commit, without a buffer, asks for the configure that gives the size.
        wl_surface_commit(surface.proxy)
        statistics.surfaces += 1
        return OverlaySurface(surface: surface, layer: layer, state: state, scale: scale)
    }

    private func requestFrame(_ surface: OverlaySurface, in bound: Bound) {
        guard let callback = WaylandObject<CallbackKind>(wl_surface_frame(surface.surface.proxy), on: bound.connection.display) else { return }
        wl_callback_add_listener(callback.proxy, Self.frameListener, callback.retaining(surface.state))
        surface.callback = callback
        surface.state.awaitingFrame = true
    }

    /// Asks when the surface's next commit reaches the screen, where the compositor can say it on our clock.
    private func requestFeedback(_ surface: OverlaySurface, in bound: Bound, token: FramePresentations.Token) {
        guard let presentation = bound.timedPresentation,
            let feedback = WaylandObject<PresentationFeedbackKind>(
                wp_presentation_feedback(presentation.object.proxy, surface.surface.proxy), on: bound.connection.display)
        else { return }
        let state = FeedbackState(token: token, raw: presentation.clock == UInt32(bitPattern: MonotonicClock.rawClockID))
        wp_presentation_feedback_add_listener(feedback.proxy, Self.feedbackListener, feedback.retaining(state))
        // A compositor that never answers must not grow the list: the oldest goes, as FramePresentations forgets it.
        if surface.feedback.count >= FramePresentations.inFlightLimit { surface.feedback.removeFirst() }
        surface.feedback.append((feedback, state))
    }

    /// Reports the answered feedback of `surface` (after a dispatch) and lets go of its objects.
    private func collectFeedback(of surface: OverlaySurface) {
        guard surface.feedback.contains(where: { $0.state.outcome != nil }) else { return }
        for (_, state) in surface.feedback {
            switch state.outcome {
            case nil: break
            case .presented(let atUS, let refreshNS): statistics.presentations.presented(state.token, atUS: atUS, refreshNS: refreshNS)
            case .discarded: statistics.presentations.discarded(state.token)
            }
        }
        // Their proxies go here, after the dispatch that answered them, not inside their own listeners.
        surface.feedback.removeAll { $0.state.outcome != nil }
    }

    /// Paints `frame` into a free buffer of the surface's size, repainting only what changed since that buffer last
    /// held a frame, and commits it with a frame callback. `false` when every buffer is still the compositor's.
    private func draw(_ frame: OverlayFrame, on surface: OverlaySurface, in bound: Bound) -> Bool {
        let scale = Int(surface.scale)
        let pixelWidth = Int(surface.state.width) * scale, pixelHeight = Int(surface.state.height) * scale
        guard pixelWidth > 0, pixelHeight > 0 else { return false }
        surface.buffers.removeAll { $0.width != pixelWidth || $0.height != pixelHeight }
        let buffer: OverlayBuffer
        if let free = surface.buffers.first(where: { !$0.state.busy }) {
            buffer = free
        } else if surface.buffers.count < 2 {
            do { buffer = try OverlayBuffer(shm: bound.shm, width: pixelWidth, height: pixelHeight) } catch {
                logger.error("overlay: \(error)")
                return false
            }
            surface.buffers.append(buffer)
            statistics.buffers += 1
        } else {
            // Both are on screen or being read: the release wakes this thread again.
            return false
        }
        let width = Double(surface.state.width), height = Double(surface.state.height)
        let bounds = OverlayPainter.bounds(of: frame, width: width, height: height)
        let dirty = [buffer.painted, bounds].compactMap { $0 }.reduce(nil as OverlayRect?) { $0?.union($1) ?? $1 }?
            .clipped(width: width, height: height)
        if let dirty, let cr = cairo_create(buffer.cairo.pointer) {
            let s = Double(scale)
            // Whole device pixels, so that nothing outside is left half cleared.
            let x0 = floor(dirty.x * s), y0 = floor(dirty.y * s)
            let x1 = ceil(dirty.maxX * s), y1 = ceil(dirty.maxY * s)
            cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0)
            cairo_clip(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
            cairo_paint(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
            cairo_scale(cr, s, s)
            painter.draw(frame, on: cr, width: width, height: height)
            cairo_destroy(cr)
            cairo_surface_flush(buffer.cairo.pointer)
            surface.damage(x: Int32(x0), y: Int32(y0), width: Int32(x1 - x0), height: Int32(y1 - y0))
        }
        buffer.painted = bounds
        buffer.state.busy = true
        wl_surface_attach(surface.surface.proxy, buffer.buffer.proxy, 0, 0)
        requestFrame(surface, in: bound)
        // The number update() gives this commit in FramePresentations, once it is made.
        requestFeedback(surface, in: bound, token: FramePresentations.Token(statistics.frames + 1))
        wl_surface_commit(surface.surface.proxy)
        surface.shown = frame
        return true
    }

    // MARK: Listeners (on the Wayland thread, during a dispatch; pump() follows it)

    nonisolated(unsafe) private static let outputListener: UnsafeMutablePointer<wl_output_listener> = {
        let listener = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_output_listener(
            geometry: { _, _, _, _, _, _, _, _, _, _ in },
            mode: { _, _, _, _, _, _ in },
            done: { _, _ in },
            scale: { data, _, factor in
                // A compositor's number: kept to what a buffer of a real output can be.
                listenerContext(data, as: OutputInfo.self)?.scale = min(max(1, factor), OutputInfo.maxScale)
            },
            name: { data, _, name in
                guard let name else { return }
                listenerContext(data, as: OutputInfo.self)?.name = String(cString: name)
            },
            description: { _, _, _ in }))
        return listener
    }()

    nonisolated(unsafe) private static let layerListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_layer_surface_v1_listener(
            configure: { data, layer, serial, width, height in
                guard let state = listenerContext(data, as: SurfaceState.self) else { return }
                zwlr_layer_surface_v1_ack_configure(layer, serial)
                // A compositor's numbers: a surface larger than any screen is refused rather than allocated.
                let fits = width > 0 && height > 0 && width <= SurfaceState.maxSide && height <= SurfaceState.maxSide
                state.width = fits ? width : 0
                state.height = fits ? height : 0
                state.configured = fits
                state.resized = true
            },
            closed: { data, _ in
                listenerContext(data, as: SurfaceState.self)?.closed = true
            }))
        return listener
    }()

    nonisolated(unsafe) fileprivate static let presentationListener: UnsafeMutablePointer<wp_presentation_listener> = {
        let listener = UnsafeMutablePointer<wp_presentation_listener>.allocate(capacity: 1)
        listener.initialize(to: wp_presentation_listener(clock_id: { data, _, clock in
            listenerContext(data, as: PresentationClock.self)?.id = clock
        }))
        return listener
    }()

    nonisolated(unsafe) private static let feedbackListener: UnsafeMutablePointer<wp_presentation_feedback_listener> = {
        let listener = UnsafeMutablePointer<wp_presentation_feedback_listener>.allocate(capacity: 1)
        listener.initialize(to: wp_presentation_feedback_listener(
            sync_output: { _, _, _ in },
            presented: { data, _, secondsHigh, secondsLow, nanoseconds, refresh, _, _, _ in
                guard let state = listenerContext(data, as: FeedbackState.self) else { return }
                var outcome = FeedbackState.presented(secondsHigh: secondsHigh, secondsLow: secondsLow, nanoseconds: nanoseconds, refreshNS: refresh)
                // Brought onto our clock now, while the time is fresh (its age is what carries over).
                if state.raw, case .presented(let atUS, let refreshNS) = outcome {
                    outcome = .presented(atUS: MonotonicClock.microseconds(fromRaw: atUS), refreshNS: refreshNS)
                }
                state.outcome = outcome
            },
            discarded: { data, _ in
                listenerContext(data, as: FeedbackState.self)?.outcome = .discarded
            }))
        return listener
    }()

    nonisolated(unsafe) private static let frameListener: UnsafeMutablePointer<wl_callback_listener> = {
        let listener = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_callback_listener(done: { data, _, milliseconds in
            // The callback object itself goes when the surface asks for the next one, or with the surface.
            listenerContext(data, as: SurfaceState.self)?.frameDone(atMS: milliseconds)
        }))
        return listener
    }()
}

/// What a `wl_output`'s events said (its listener's context).
final class OutputInfo {
    /// No real output has a larger scale; a compositor that says more is not believed.
    static let maxScale: Int32 = 8
    /// Its name (`wl_output` version 4: `eDP-1`), when the compositor says it.
    var name: String?
    var scale: Int32 = 1
}

/// A `wl_output` the overlay may draw on, released with it.
final class OverlayOutput {
    let object: WaylandObject<OutputKind>
    let info: OutputInfo
    var surface: OverlaySurface?

    init(object: WaylandObject<OutputKind>, info: OutputInfo) {
        self.object = object
        self.info = info
    }
}

/// What a layer surface's and its frame callbacks' events said (their listeners' context).
final class SurfaceState {
    /// Larger than any output (16K is 15360).
    static let maxSide: UInt32 = 32768
    var width: UInt32 = 0
    var height: UInt32 = 0
    var configured = false
    /// A configure came since the last frame: the next one is drawn whole.
    var resized = false
    var closed = false
    /// A frame was committed and its callback has not come yet.
    var awaitingFrame = false
    /// The compositor's timestamps of the last frame callbacks, in milliseconds.
    var lastFrameMS: UInt32?
    var frameIntervalsMS: [UInt32] = []

    func frameDone(atMS ms: UInt32) {
        awaitingFrame = false
        // Only between frames that followed each other (the previous callback asked for this one's frame).
        if let last = lastFrameMS, ms > last, ms - last < 200, frameIntervalsMS.count < 4096 { frameIntervalsMS.append(ms - last) }
        lastFrameMS = ms
    }
}

/// The clock `wp_presentation` stamps its times with (its listener's context): `clock_id`, once bound.
final class PresentationClock {
    var id: UInt32?
}

/// What one commit's `wp_presentation_feedback` said (its listener's context), until the overlay reports it.
final class FeedbackState {
    enum Outcome: Equatable, Sendable {
        case presented(atUS: UInt64, refreshNS: UInt32)
        case discarded
    }

    /// The commit's number in ``FramePresentations``.
    let token: FramePresentations.Token
    /// The times are on `CLOCK_MONOTONIC_RAW`, not ours.
    let raw: Bool
    var outcome: Outcome?

    init(token: FramePresentations.Token, raw: Bool) {
        self.token = token
        self.raw = raw
    }

    /// `presented`'s time as microseconds on the clock: a compositor's numbers, so a time no clock reaches (over
    /// 2^64 microseconds, or nanoseconds past a second) counts as not shown rather than trapping.
    static func presented(secondsHigh: UInt32, secondsLow: UInt32, nanoseconds: UInt32, refreshNS: UInt32) -> Outcome {
        let seconds = UInt64(secondsHigh) << 32 | UInt64(secondsLow)
        let (us, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow, nanoseconds < 1_000_000_000, us <= UInt64.max - 1_000_000 else { return .discarded }
        return .presented(atUS: us + UInt64(nanoseconds / 1000), refreshNS: refreshNS)
    }
}

/// One output's layer surface, while something is drawn on it; its objects go with it (the layer surface first: it
/// keeps its `wl_surface`).
final class OverlaySurface {
    let surface: WaylandObject<SurfaceKind>
    let layer: WaylandObject<LayerSurfaceKind>
    let state: SurfaceState
    let scale: Int32
    var callback: WaylandObject<CallbackKind>?
    /// The `wp_presentation_feedback` of commits not yet answered, oldest first, each with its listener's context;
    /// they go when answered, or with the surface.
    var feedback: [(object: WaylandObject<PresentationFeedbackKind>, state: FeedbackState)] = []
    var buffers: [OverlayBuffer] = []
    /// The frame committed last.
    var shown: OverlayFrame?

    init(surface: WaylandObject<SurfaceKind>, layer: WaylandObject<LayerSurfaceKind>, state: SurfaceState, scale: Int32) {
        self.surface = surface
        self.layer = layer
        self.state = state
        self.scale = scale
    }

    /// Marks a rectangle of the buffer, in its pixels, as changed: `wl_surface.damage_buffer` where the surface has
    /// it (version 4), else `wl_surface.damage` in surface coordinates, rounded outwards (a compositor offering
    /// `wl_compositor` version 3 ends the connection with a protocol error at a request it does not know).
    func damage(x: Int32, y: Int32, width: Int32, height: Int32) {
        if surface.version >= 4 {
            wl_surface_damage_buffer(surface.proxy, x, y, width, height)
        } else {
            let s = max(1, scale)
            let x0 = x / s, y0 = y / s
            let x1 = (x + width + s - 1) / s, y1 = (y + height + s - 1) / s
            wl_surface_damage(surface.proxy, x0, y0, x1 - x0, y1 - y0)
        }
    }
}

/// A cairo image surface, destroyed with its owner.
final class CairoSurface {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { cairo_surface_destroy(pointer) }
}

/// Whether the compositor holds a buffer (its listener's context).
final class BufferState {
    /// Attached and not yet released.
    var busy = false
}

/// A `wl_shm` buffer with its memory and a cairo surface over it, all let go of together (the compositor keeps its
/// own mapping while it still shows it).
final class OverlayBuffer {
    let buffer: WaylandObject<BufferKind>
    /// Declared after the buffer and before the memory: cairo lets go of its surface before the memory it draws into
    /// is unmapped.
    let cairo: CairoSurface
    let memory: SharedMemory
    let state = BufferState()
    let width: Int
    let height: Int
    /// What the frame last drawn into it covers: cleared when it is drawn into again.
    var painted: OverlayRect?

    init(shm: WaylandObject<ShmKind>, width: Int, height: Int) throws(WaylandError) {
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(clamping: width)))
        guard stride > 0, height > 0 else { throw WaylandError("no stride for a \(width)-pixel-wide buffer") }
        let (byteCount, overflow) = stride.multipliedReportingOverflow(by: height)
        guard !overflow, byteCount <= Int(Int32.max) else { throw WaylandError("a \(width)x\(height) buffer is too large for wl_shm") }
        let memory: SharedMemory
        do { memory = try SharedMemory(name: "edgeswipe-overlay", byteCount: byteCount) } catch {
            throw WaylandError("cannot make a \(width)x\(height) buffer: \(error)")
        }
        guard let pool = WaylandObject<ShmPoolKind>(wl_shm_create_pool(shm.proxy, memory.descriptor.rawValue, Int32(byteCount)), on: shm.display) else {
            throw WaylandError("wl_shm.create_pool failed")
        }
        // cairo's ARGB32 is wl_shm's ARGB8888: premultiplied, native-endian 32-bit pixels. The pool may go at once:
        // the buffer keeps the memory on the compositor's side.
        guard let buffer = WaylandObject<BufferKind>(
            wl_shm_pool_create_buffer(pool.proxy, 0, Int32(width), Int32(height), Int32(stride), WL_SHM_FORMAT_ARGB8888.rawValue), on: shm.display)
        else { throw WaylandError("wl_shm_pool.create_buffer failed") }
        guard let surface = cairo_image_surface_create_for_data(
            memory.bytes.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, Int32(width), Int32(height), Int32(stride))
        else { throw WaylandError("cairo cannot draw into a \(width)x\(height) buffer") }
        let cairo = CairoSurface(surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { throw WaylandError("cairo cannot draw into a \(width)x\(height) buffer") }
        self.buffer = buffer
        self.cairo = cairo
        self.memory = memory
        self.width = width
        self.height = height
        wl_buffer_add_listener(buffer.proxy, Self.listener, buffer.retaining(state))
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wl_buffer_listener> = {
        let listener = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_buffer_listener(release: { data, _ in
            listenerContext(data, as: BufferState.self)?.busy = false
        }))
        return listener
    }()
}

/// What the overlay did, for the benchmark and the log.
public struct OverlayStatistics: Sendable, CustomStringConvertible {
    /// Frames committed.
    public var frames = 0
    /// Surfaces and buffers made (a surface per output per burst of activity, at most two buffers each).
    public var surfaces = 0
    public var buffers = 0
    /// From a message's arrival to the commit of the frame that shows it, in microseconds (the latest 8192).
    public var latency = BoundedSamples(capacity: 8192)
    /// Between the compositor's frame callbacks while frames follow each other, in its milliseconds.
    public var frameIntervalMS = BoundedSamples(capacity: 8192)
    /// What became of the committed frames on the screen (wp_presentation feedback): issue 39 item 2's figure.
    public var presentations = FramePresentations()

    /// `812 frames (3 surfaces, 6 buffers); stream line -> commit p50 0.41 ms, p99 2.30 ms, max 3.10 ms (n 812); compositor frame
    /// interval p50 16 ms (n 800); stream line -> presentation ...` (``FramePresentations``): one line for the log,
    /// which the benchmark reads.
    public var description: String {
        func ms(_ us: UInt64?) -> String { us.map { String(format2: Double($0) / 1000) } ?? "-" }
        return "\(frames) frames (\(surfaces) surfaces, \(buffers) buffers); stream line -> commit p50 \(ms(latency.percentile(50))) ms, "
            + "p99 \(ms(latency.percentile(99))) ms, max \(ms(latency.values.max())) ms (n \(latency.values.count)); compositor frame interval p50 "
            + "\(frameIntervalMS.percentile(50).map(String.init) ?? "-") ms (n \(frameIntervalMS.values.count)); \(presentations)"
    }
}

/// The latest `capacity` samples.
public struct BoundedSamples: Sendable {
    public let capacity: Int
    public private(set) var values: [UInt64] = []
    private var next = 0

    public init(capacity: Int) { self.capacity = capacity }

    /// The nearest-rank percentile `p` (0...100) of the samples kept; `nil` without samples.
    public func percentile(_ p: Double) -> UInt64? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }

    public mutating func append(_ v: UInt64) {
        if values.count < capacity {
            values.append(v)
        } else {
            values[next] = v
            next = (next + 1) % capacity
        }
    }
}
