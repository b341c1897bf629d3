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
/// flight, each frame paced by the compositor's frame callbacks: painted just before the compositor's next frame
/// with the newest state (``FramePacer``), so that a line shows in the frame after it arrived. At rest it has no
/// surface and no buffer at all: a gesture creates the surfaces it needs, and they go a second after the run-out
/// has ended (cleared meanwhile, for the next swipe's first frame).
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
    /// How long a surface stays, cleared, after its drawing ended: the next swipe within it draws its first frame
    /// at once. Then it goes, and with it its buffers.
    static let lingerUS: UInt64 = 1_000_000

    private let logger: Logger
    private var model: OverlayModel
    private let painter: OverlayPainter
    private var bound: Bound?
    /// When the earliest message not yet shown arrived (the latency statistic's start).
    private var unshownSince: UInt64?
    private(set) var statistics = OverlayStatistics()
    /// When a picture that changed is due to be painted (the earliest surface's deadline).
    private var nextPaintUS: UInt64?
    /// When the first cleared surface is let go of.
    private var lingerEndUS: UInt64?
    /// When the thread must wake for the overlay, without a message or a compositor's event: a deadline, or a
    /// lingering surface's end.
    var nextWakeUS: UInt64? { [nextPaintUS, lingerEndUS].compactMap { $0 }.min() }

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
        nextPaintUS = nil
        lingerEndUS = nil
        let moving = model.isMoving(atUS: now)
        for key in bound.outputs.keys.sorted() {
            guard let output = bound.outputs[key] else { continue }
            var frame = model.frame(atUS: now, output: output.info.name, outputs: names)
            if frame.marks.count > Self.maxMarks { frame.marks.removeLast(frame.marks.count - Self.maxMarks) }
            drew = update(output, in: bound, frame: frame, moving: moving, now: now) || drew
        }
        let waiting = nextPaintUS != nil
            || bound.outputs.values.contains { o in o.pacer.isInFlight || (o.surface.map { !$0.state.configured } ?? false) }
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
        takeFramesDone(of: surface, output: output, now: now)
        if frame.isEmpty {
            // Kept, cleared, for a moment after the drawing ended: mapping a new surface costs the next swipe a frame
            // or more (sway's first frame for it came ~20 ms after its commit), and swipes often follow each other.
            let since = surface.emptySinceUS ?? now
            surface.emptySinceUS = since
            if now >= since + Self.lingerUS || surface.state.closed {
                output.surface = nil
                pace(output, .surfaceGone, atUS: now)
                return false
            }
            lingerEndUS = min(lingerEndUS ?? since + Self.lingerUS, since + Self.lingerUS)
            if surface.shown?.isEmpty ?? true { return false }
        } else {
            surface.emptySinceUS = nil
        }
        if surface.state.closed {
            output.surface = nil
            pace(output, .surfaceGone, atUS: now)
            return false
        }
        guard surface.state.configured else { return false }
        if surface.state.resized {
            // A new size needs a whole new picture.
            surface.state.resized = false
            surface.shown = nil
        }
        let unchanged = frame == surface.shown
        // A run-out's unchanged picture needs a commit only to keep the frames coming, never to replace one.
        if unchanged, !moving || output.pacer.isInFlight { return false }
        switch output.pacer.decision(atUS: now) {
        case .paintNow: break
        case .paintAt(let deadline):
            nextPaintUS = min(nextPaintUS ?? deadline, deadline)
            return false
        case .waitForFrame:
            return false
        }
        if unchanged {
            // A run-out whose picture did not change this frame still needs the next one; a commit with a pixel of
            // damage makes sure the compositor paints a frame (and so calls back), as it paints only what changed.
            surface.damage(x: 0, y: 0, width: 1, height: 1)
            requestFrame(surface, token: nil, in: bound)
            wl_surface_commit(surface.surface.proxy)
            pace(output, .committed, atUS: now)
            return false
        }
        // The number this commit gets in FramePresentations, once made.
        let token = FramePresentations.Token(statistics.frames + 1)
        guard draw(frame, on: surface, token: token, in: bound) else { return false }
        pace(output, .committed, atUS: now)
        let committed = MonotonicClock.now().microseconds
        // A sheet's picture painted in this frame (PanelPicture) is not what the next frames cost: counted, the
        // longest-painting rule would make every line wait for it for the next 32 frames (an 11 ms lead once).
        let painting = committed - min(committed, now)
        pace(output, .painted(durationUS: painting - min(painting, surface.panelPicture.takePaintingUS())), atUS: committed)
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

    /// One event for the output's pacer; its changes of state go to the trace log, a bug to the error log.
    private func pace(_ output: OverlayOutput, _ event: FramePacer.Event, atUS now: UInt64) {
        guard let note = output.pacer.handle(event, atUS: now) else { return }
        if note.hasPrefix("bug") { logger.error("overlay: \(note)") } else { logger.trace("overlay: \(output.info.name ?? "output"): \(note)") }
    }

    /// Hands the output's pacer and the statistics the surface's frame callbacks that came since the last turn.
    private func takeFramesDone(of surface: OverlaySurface, output: OverlayOutput, now: UInt64) {
        let pacer = output.pacer
        if output.info.refreshMHz > 0 { pace(output, .refresh(intervalUS: 1_000_000_000 / UInt64(output.info.refreshMHz)), atUS: now) }
        guard !surface.state.done.isEmpty else { return }
        for done in surface.state.done {
            if let token = done.token { statistics.presentations.rendered(token, atUS: done.frameUS, intervalUS: output.pacer.intervalUS) }
            // Only the newest commit's callback ends the flight: an older one's (a picture replaced) says it was drawn.
            if done.commit == surface.commits { pace(output, .frameDone(frameUS: done.frameUS), atUS: now) }
        }
        // Their proxies go here, after the dispatch that answered them, not inside their own listeners.
        let answered = Set(surface.state.done.map(\.commit))
        surface.callbacks.removeAll { answered.contains($0.commit) }
        surface.state.done.removeAll(keepingCapacity: true)
        statistics.framesMade += output.pacer.made - pacer.made
        statistics.framesMissed += output.pacer.missed - pacer.missed
        statistics.leadUS = output.pacer.leadUS
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

    /// Asks for the next commit's frame callback (the commit, numbered on the surface, follows), with the
    /// picture's number in FramePresentations where it is a new picture.
    private func requestFrame(_ surface: OverlaySurface, token: FramePresentations.Token?, in bound: Bound) {
        surface.commits += 1
        guard let callback = WaylandObject<CallbackKind>(wl_surface_frame(surface.surface.proxy), on: bound.connection.display) else { return }
        let context = FrameCallback(commit: surface.commits, token: token, surface: surface.state)
        wl_callback_add_listener(callback.proxy, Self.frameListener, callback.retaining(context))
        // A compositor that never calls back must not grow the list: the oldest goes (its callback is then ignored).
        if surface.callbacks.count >= OverlaySurface.callbackLimit { surface.callbacks.removeFirst() }
        surface.callbacks.append((surface.commits, callback))
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
    private func draw(_ frame: OverlayFrame, on surface: OverlaySurface, token: FramePresentations.Token, in bound: Bound) -> Bool {
        let scale = Int(surface.scale)
        let pixelWidth = Int(surface.state.width) * scale, pixelHeight = Int(surface.state.height) * scale
        guard pixelWidth > 0, pixelHeight > 0 else { return false }
        surface.buffers.removeAll { $0.width != pixelWidth || $0.height != pixelHeight }
        let buffer: OverlayBuffer
        if let free = surface.buffers.first(where: { !$0.state.busy }) {
            buffer = free
        } else if surface.buffers.count < OverlaySurface.bufferLimit {
            do { buffer = try OverlayBuffer(shm: bound.shm, width: pixelWidth, height: pixelHeight) } catch {
                logger.error("overlay: \(error)")
                return false
            }
            surface.buffers.append(buffer)
            statistics.buffers += 1
        } else {
            // All are on screen or being read: the release wakes this thread again.
            return false
        }
        let width = Double(surface.state.width), height = Double(surface.state.height)
        let bounds = OverlayPainter.bounds(of: frame, width: width, height: height)
        if !frame.marks.contains(where: { if case .panel = $0 { true } else { false } }) { surface.panelPicture.forget() }
        let dirty = [buffer.painted, bounds].compactMap { $0 }.reduce(nil as OverlayRect?) { $0?.union($1) ?? $1 }?
            .clipped(width: width, height: height)
        if let dirty, let cr = cairo_create(buffer.cairo.pointer) {
            let s = Double(scale)
            // Whole device pixels, so that nothing outside is left half cleared.
            let x0 = floor(dirty.x * s), y0 = floor(dirty.y * s)
            let x1 = ceil(dirty.maxX * s), y1 = ceil(dirty.maxY * s)
            cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0)
            cairo_clip(cr)
            if !OverlayPainter.coversEverything(frame) {
                cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
                cairo_paint(cr)
                cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
            }
            cairo_scale(cr, s, s)
            painter.draw(frame, on: cr, width: width, height: height, panelPicture: surface.panelPicture, scale: scale)
            cairo_destroy(cr)
            cairo_surface_flush(buffer.cairo.pointer)
            surface.damage(x: Int32(x0), y: Int32(y0), width: Int32(x1 - x0), height: Int32(y1 - y0))
        }
        buffer.painted = bounds
        buffer.state.busy = true
        wl_surface_attach(surface.surface.proxy, buffer.buffer.proxy, 0, 0)
        requestFrame(surface, token: token, in: bound)
        requestFeedback(surface, in: bound, token: token)
        wl_surface_commit(surface.surface.proxy)
        surface.shown = frame
        return true
    }

    // MARK: Listeners (on the Wayland thread, during a dispatch; pump() follows it)

    nonisolated(unsafe) private static let outputListener: UnsafeMutablePointer<wl_output_listener> = {
        let listener = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_output_listener(
            geometry: { _, _, _, _, _, _, _, _, _, _ in },
            mode: { data, _, flags, _, _, refresh in
                // The current mode's refresh, in mHz: the frame interval the overlay paces its frames by.
                guard flags & UInt32(WL_OUTPUT_MODE_CURRENT.rawValue) != 0 else { return }
                listenerContext(data, as: OutputInfo.self)?.refreshMHz = max(0, refresh)
            },
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
            // The callback object itself goes at the overlay's next turn, or with the surface.
            guard let callback = listenerContext(data, as: FrameCallback.self) else { return }
            callback.surface.frameDone(commit: callback.commit, token: callback.token, atMS: milliseconds)
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
    /// The current mode's refresh rate in mHz (0: not said).
    var refreshMHz: Int32 = 0
}

/// A `wl_output` the overlay may draw on, released with it.
final class OverlayOutput {
    let object: WaylandObject<OutputKind>
    let info: OutputInfo
    var surface: OverlaySurface?
    /// When to paint on it (FramePacer): the output's, so that the margin it learns outlasts each gesture's surface.
    var pacer = FramePacer()

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
    /// The frame callbacks that came since the overlay's last turn: which commit, its picture's number, and when
    /// the compositor drew it (on the monotonic clock).
    var done: [(commit: UInt64, token: FramePresentations.Token?, frameUS: UInt64)] = []
    /// The compositor's timestamps of the last frame callbacks, in milliseconds.
    var lastFrameMS: UInt32?
    var frameIntervalsMS: [UInt32] = []

    func frameDone(commit: UInt64, token: FramePresentations.Token?, atMS ms: UInt32) {
        if done.count < OverlaySurface.callbackLimit {
            done.append((commit, token, FramePacer.frameTimeUS(stampMS: ms, receivedUS: MonotonicClock.now().microseconds)))
        }
        // Only between frames that followed each other (the previous callback asked for this one's frame).
        if let last = lastFrameMS, ms > last, ms - last < 200, frameIntervalsMS.count < 4096 { frameIntervalsMS.append(ms - last) }
        lastFrameMS = ms
    }
}

/// One frame callback's listener context: which commit of the surface it belongs to, and its picture's number.
final class FrameCallback {
    let commit: UInt64
    let token: FramePresentations.Token?
    let surface: SurfaceState

    init(commit: UInt64, token: FramePresentations.Token?, surface: SurfaceState) {
        self.commit = commit
        self.token = token
        self.surface = surface
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
    /// Frame callbacks asked for and not answered, a few at most (a picture replaced before it was drawn keeps its
    /// own), by the surface's number for their commit.
    var callbacks: [(commit: UInt64, object: WaylandObject<CallbackKind>)] = []
    static let callbackLimit = 4
    /// Commits made with a frame callback.
    var commits: UInt64 = 0
    /// Buffers at most: two, and a third for a picture that replaces one not drawn yet while the compositor still
    /// holds the other.
    static let bufferLimit = 3
    /// The `wp_presentation_feedback` of commits not yet answered, oldest first, each with its listener's context;
    /// they go when answered, or with the surface.
    var feedback: [(object: WaylandObject<PresentationFeedbackKind>, state: FeedbackState)] = []
    var buffers: [OverlayBuffer] = []
    /// Since when the model has had nothing to draw here (the surface lingers: Overlay.lingerUS).
    var emptySinceUS: UInt64?
    /// The frame committed last.
    var shown: OverlayFrame?
    /// The presented sheet's picture (PanelPicture: painted once, composited into each frame).
    let panelPicture = PanelPicture()

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
    /// Commits made at their deadline (FramePacer) that made the compositor's frame they aimed at, those that did
    /// not, and how long before the frame the pacer begins to paint (painting and margin; the last output's).
    public var framesMade = 0
    public var framesMissed = 0
    public var leadUS: UInt64 = FramePacer.initialMarginUS
    /// What became of the committed frames on the screen (wp_presentation feedback): issue 39 item 2's figure.
    public var presentations = FramePresentations()

    /// `812 frames (3 surfaces, 6 buffers); stream line -> commit p50 0.41 ms, p99 2.30 ms, max 3.10 ms (n 812); compositor frame
    /// interval p50 16 ms (n 800); stream line -> presentation ...` (``FramePresentations``): one line for the log,
    /// which the benchmark reads.
    public var description: String {
        func ms(_ us: UInt64?) -> String { us.map { String(format2: Double($0) / 1000) } ?? "-" }
        return "\(frames) frames (\(surfaces) surfaces, \(buffers) buffers); stream line -> commit p50 \(ms(latency.percentile(50))) ms, "
            + "p99 \(ms(latency.percentile(99))) ms, max \(ms(latency.values.max())) ms (n \(latency.values.count)); compositor frame interval p50 "
            + "\(frameIntervalMS.percentile(50).map(String.init) ?? "-") ms (n \(frameIntervalMS.values.count)); paced frames made \(framesMade), missed "
            + "\(framesMissed), lead \(String(format2: Double(leadUS) / 1000)) ms; \(presentations)"
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
