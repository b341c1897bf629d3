import CCairo
import CWayland
public import EdgeSwipeClient
import EdgeSwipeProtocol
public import EdgeSwipeSessionModel
import EdgeSwipeSystem
import Glibc
public import Logging
import NIOConcurrencyHelpers

/// Feedback under the finger, drawn on the real desktop: an `overlay`-layer surface of wlr-layer-shell on each
/// output a gesture shows on, which never takes input (an empty input region, no keyboard interactivity), drawn
/// into `wl_shm` buffers with cairo from ``OverlayModel``'s frames.
///
/// It draws only while something moves: a message that changes the picture, or a run-out, spring or blend in
/// flight, each frame paced by the compositor's frame callbacks. At rest it has no surface and no buffer at all;
/// a gesture creates the surfaces it needs, and they go once the run-out has ended.
///
/// Threads: ``handle(_:)`` runs on the session's event loop and only updates the model; everything Wayland runs on
/// the connection's thread (``WaylandConnection/onDispatch(_:)``), which it wakes.
public final class Overlay: @unchecked Sendable {
    /// Why a compositor without the protocol gets no overlay, said once at start-up.
    public static let unsupportedHint =
        "the compositor offers no zwlr_layer_shell_v1 (GNOME does not): no feedback is drawn under the finger; the effects keep working"

    private let connection: WaylandConnection
    private let logger: Logger
    private let compositor: OpaquePointer
    private let shm: OpaquePointer
    private let layerShell: OpaquePointer
    /// Guards everything below: the model is written on the event loop, read and drawn on the Wayland thread.
    private let lock = NIOLock()
    private var model: OverlayModel
    private let painter: OverlayPainter
    private var outputs: [UInt32: OverlayOutput] = [:]
    /// When the earliest message not yet shown arrived (the latency statistic's start).
    private var unshownSince: UInt64?
    private var statistics = OverlayStatistics()

    /// Binds what the overlay needs; an error (saying what is missing) where the compositor lacks it.
    public init(connection: WaylandConnection, settings: OverlaySettings, logger: Logger) throws(WaylandError) {
        // cairo is loaded here, not when the client starts (Sources/CCairo/include/CCairo.h).
        try OverlayPainter.loadCairo()
        guard let shellGlobal = connection.global("zwlr_layer_shell_v1") else { throw WaylandError(Self.unsupportedHint) }
        guard let compositorGlobal = connection.global("wl_compositor") else { throw WaylandError("the compositor offers no wl_compositor") }
        guard let shmGlobal = connection.global("wl_shm") else { throw WaylandError("the compositor offers no wl_shm") }
        guard compositorGlobal.version >= 3 else {
            throw WaylandError("the compositor's wl_compositor is version \(compositorGlobal.version); the overlay needs 3 (buffer scale)")
        }
        guard let compositor = connection.bind(compositorGlobal, cwayland_wl_compositor_interface(), version: 4) else {
            throw WaylandError("cannot bind wl_compositor")
        }
        guard let shm = connection.bind(shmGlobal, cwayland_wl_shm_interface(), version: 1) else {
            wl_proxy_destroy(compositor)
            throw WaylandError("cannot bind wl_shm")
        }
        guard let layerShell = connection.bind(shellGlobal, cwayland_zwlr_layer_shell_v1_interface(), version: 1) else {
            wl_proxy_destroy(shm)
            wl_proxy_destroy(compositor)
            throw WaylandError("cannot bind zwlr_layer_shell_v1")
        }
        self.connection = connection
        self.logger = logger
        self.compositor = compositor
        self.shm = shm
        self.layerShell = layerShell
        self.model = OverlayModel(settings: settings)
        self.painter = OverlayPainter(accent: settings.accent)
        // The outputs' names and scales arrive as events: bind them now, so that they are known at the first touch.
        lock.withLock { refreshOutputs() }
        connection.onDispatch { [weak self] in self?.pump() }
        connection.flush()
    }

    /// New settings, from a reload.
    public func replace(_ settings: OverlaySettings) {
        lock.withLock {
            model.settings = settings
        }
        connection.wakeUp()
    }

    /// One observation of the daemon client, on the session's event loop: the model follows it, and the Wayland
    /// thread is woken to draw what changed.
    public func handle(_ observation: EdgeSwipeClient.Observation) {
        let now = MonotonicClock.now().microseconds
        lock.withLock {
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
        connection.wakeUp()
    }

    /// Frames, buffers and latency so far (for the benchmark and the log at exit).
    public var summary: OverlayStatistics { lock.withLock { statistics } }

    // MARK: The Wayland thread

    /// Brings every output's surface up to date with the model at this instant: on the Wayland thread, after every
    /// dispatch (a configure, a frame callback, a released buffer, or a wake-up from ``handle(_:)``).
    private func pump() {
        lock.withLock {
            let now = MonotonicClock.now().microseconds
            if outputs.isEmpty || outputs.values.allSatisfy({ $0.surface == nil }) { refreshOutputs() }
            let names = Set(outputs.values.compactMap(\.name))
            var drew = false
            for key in outputs.keys.sorted() {
                guard let output = outputs[key] else { continue }
                let frame = model.frame(atUS: now, output: output.name, outputs: names)
                drew = update(output, frame: frame, moving: model.isMoving(atUS: now), now: now) || drew
            }
            let waiting = outputs.values.contains { o in o.surface.map { $0.callback != nil || !$0.configured } ?? false }
            if !drew, !waiting {
                // Nothing was left to show: the next message starts the clock again.
                unshownSince = nil
            }
            for output in outputs.values {
                guard let surface = output.surface else { continue }
                for ms in surface.frameIntervalsMS { statistics.frameIntervalMS.append(UInt64(ms)) }
                surface.frameIntervalsMS.removeAll(keepingCapacity: true)
            }
        }
        connection.flush()
    }

    /// Draws `frame` on `output` if it changed and the compositor is ready for a frame; creates and destroys the
    /// surface as the frame needs one. Whether a frame was committed.
    private func update(_ output: OverlayOutput, frame: OverlayFrame, moving: Bool, now: UInt64) -> Bool {
        guard let surface = output.surface else {
            if !frame.isEmpty { output.surface = makeSurface(on: output) }
            return false
        }
        if surface.closed || frame.isEmpty {
            destroy(surface)
            output.surface = nil
            return false
        }
        guard surface.configured, surface.callback == nil else { return false }
        if frame == surface.shown {
            // A run-out whose picture did not change this frame still needs the next one; a commit with a pixel of
            // damage makes sure the compositor paints a frame (and so calls back), as it paints only what changed.
            if moving {
                wl_surface_damage_buffer(surface.surface, 0, 0, 1, 1)
                requestFrame(surface)
                wl_surface_commit(surface.surface)
            }
            return false
        }
        guard draw(frame, on: surface, output: output) else { return false }
        let committed = MonotonicClock.now().microseconds
        statistics.frames += 1
        if let since = unshownSince {
            statistics.latency.append(committed - min(committed, since))
            unshownSince = nil
        }
        return true
    }

    /// Binds the outputs the compositor announced that are not bound yet, and lets go of those it withdrew.
    private func refreshOutputs() {
        let announced = connection.globals.filter { $0.interface == "wl_output" }
        for (name, output) in outputs where !announced.contains(where: { $0.name == name }) {
            if let surface = output.surface { destroy(surface) }
            wl_proxy_destroy(output.proxy)
            outputs[name] = nil
        }
        for global in announced where outputs[global.name] == nil {
            guard let proxy = connection.bind(global, cwayland_wl_output_interface(), version: 4) else { continue }
            let output = OverlayOutput(global: global.name, proxy: proxy)
            outputs[global.name] = output
            wl_output_add_listener(proxy, Self.outputListener, Unmanaged.passUnretained(output).toOpaque())
        }
    }

    private func makeSurface(on output: OverlayOutput) -> OverlaySurface? {
        guard let wlSurface = wl_compositor_create_surface(compositor) else { return nil }
        // An empty input region: every touch and click goes to what lies beneath.
        if let region = wl_compositor_create_region(compositor) {
            wl_surface_set_input_region(wlSurface, region)
            wl_region_destroy(region)
        }
        wl_surface_set_buffer_scale(wlSurface, output.scale)
        guard let layer = zwlr_layer_shell_v1_get_layer_surface(
            layerShell, wlSurface, output.proxy, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue, "edgeswipe-overlay")
        else {
            wl_surface_destroy(wlSurface)
            return nil
        }
        let surface = OverlaySurface(surface: wlSurface, layer: layer, scale: output.scale)
        zwlr_layer_surface_v1_add_listener(layer, Self.layerListener, Unmanaged.passUnretained(surface).toOpaque())
        let anchors = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue
            | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue
        zwlr_layer_surface_v1_set_anchor(layer, anchors)
        zwlr_layer_surface_v1_set_size(layer, 0, 0)
        // Over panels and their exclusive zones too, and never the keyboard's focus.
        zwlr_layer_surface_v1_set_exclusive_zone(layer, -1)
        zwlr_layer_surface_v1_set_keyboard_interactivity(layer, 0)
        // The first commit, without a buffer, asks for the configure that gives the size.
        wl_surface_commit(wlSurface)
        statistics.surfaces += 1
        return surface
    }

    private func destroy(_ surface: OverlaySurface) {
        if let callback = surface.callback { wl_callback_destroy(callback) }
        surface.callback = nil
        zwlr_layer_surface_v1_destroy(surface.layer)
        wl_surface_destroy(surface.surface)
        for buffer in surface.buffers { buffer.destroy() }
        surface.buffers.removeAll()
    }

    private func requestFrame(_ surface: OverlaySurface) {
        guard let callback = wl_surface_frame(surface.surface) else { return }
        surface.callback = callback
        wl_callback_add_listener(callback, Self.frameListener, Unmanaged.passUnretained(surface).toOpaque())
    }

    /// Paints `frame` into a free buffer of the surface's size, repainting only what changed since that buffer last
    /// held a frame, and commits it with a frame callback. `false` when every buffer is still the compositor's.
    private func draw(_ frame: OverlayFrame, on surface: OverlaySurface, output: OverlayOutput) -> Bool {
        let scale = Int(surface.scale)
        let pixelWidth = Int(surface.width) * scale, pixelHeight = Int(surface.height) * scale
        guard pixelWidth > 0, pixelHeight > 0 else { return false }
        surface.buffers.removeAll { b in
            guard b.width != pixelWidth || b.height != pixelHeight else { return false }
            b.destroy()
            return true
        }
        let buffer: OverlayBuffer
        if let free = surface.buffers.first(where: { !$0.busy }) {
            buffer = free
        } else if surface.buffers.count < 2 {
            do { buffer = try OverlayBuffer(shm: shm, width: pixelWidth, height: pixelHeight) } catch {
                logger.error("overlay: \(error)")
                return false
            }
            surface.buffers.append(buffer)
            statistics.buffers += 1
        } else {
            // Both are on screen or being read: the release wakes this thread again.
            return false
        }
        let width = Double(surface.width), height = Double(surface.height)
        let bounds = OverlayPainter.bounds(of: frame, width: width, height: height)
        let dirty = [buffer.painted, bounds].compactMap { $0 }.reduce(nil as OverlayRect?) { $0?.union($1) ?? $1 }?
            .clipped(width: width, height: height)
        if let dirty, let cr = cairo_create(buffer.cairoSurface) {
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
            cairo_surface_flush(buffer.cairoSurface)
            wl_surface_damage_buffer(surface.surface, Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
        }
        buffer.painted = bounds
        buffer.busy = true
        wl_surface_attach(surface.surface, buffer.buffer, 0, 0)
        requestFrame(surface)
        wl_surface_commit(surface.surface)
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
                guard let data else { return }
                Unmanaged<OverlayOutput>.fromOpaque(data).takeUnretainedValue().scale = max(1, factor)
            },
            name: { data, _, name in
                guard let data, let name else { return }
                Unmanaged<OverlayOutput>.fromOpaque(data).takeUnretainedValue().name = String(cString: name)
            },
            description: { _, _, _ in }))
        return listener
    }()

    nonisolated(unsafe) private static let layerListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_layer_surface_v1_listener(
            configure: { data, layer, serial, width, height in
                guard let data else { return }
                let surface = Unmanaged<OverlaySurface>.fromOpaque(data).takeUnretainedValue()
                zwlr_layer_surface_v1_ack_configure(layer, serial)
                surface.width = width
                surface.height = height
                surface.configured = width > 0 && height > 0
                // A new size needs a whole new picture.
                surface.shown = nil
            },
            closed: { data, _ in
                guard let data else { return }
                Unmanaged<OverlaySurface>.fromOpaque(data).takeUnretainedValue().closed = true
            }))
        return listener
    }()

    nonisolated(unsafe) private static let frameListener: UnsafeMutablePointer<wl_callback_listener> = {
        let listener = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_callback_listener(done: { data, callback, milliseconds in
            guard let data else { return }
            let surface = Unmanaged<OverlaySurface>.fromOpaque(data).takeUnretainedValue()
            if let callback { wl_callback_destroy(callback) }
            surface.callback = nil
            surface.frameDone(atMS: milliseconds)
        }))
        return listener
    }()
}

/// A `wl_output` the overlay may draw on.
final class OverlayOutput {
    let global: UInt32
    let proxy: OpaquePointer
    /// Its name (`wl_output` version 4: `eDP-1`), when the compositor says it.
    var name: String?
    var scale: Int32 = 1
    var surface: OverlaySurface?

    init(global: UInt32, proxy: OpaquePointer) {
        self.global = global
        self.proxy = proxy
    }
}

/// One output's layer surface, while something is drawn on it.
final class OverlaySurface {
    let surface: OpaquePointer
    let layer: OpaquePointer
    let scale: Int32
    var width: UInt32 = 0
    var height: UInt32 = 0
    var configured = false
    var closed = false
    var callback: OpaquePointer?
    var buffers: [OverlayBuffer] = []
    /// The frame committed last.
    var shown: OverlayFrame?
    /// The compositor's timestamps of the last frame callbacks, in milliseconds.
    var lastFrameMS: UInt32?
    var frameIntervalsMS: [UInt32] = []

    init(surface: OpaquePointer, layer: OpaquePointer, scale: Int32) {
        self.surface = surface
        self.layer = layer
        self.scale = scale
    }

    func frameDone(atMS ms: UInt32) {
        // Only between frames that followed each other (the previous callback asked for this one's frame).
        if let last = lastFrameMS, ms > last, ms - last < 200, frameIntervalsMS.count < 4096 { frameIntervalsMS.append(ms - last) }
        lastFrameMS = ms
    }
}

/// A `wl_shm` buffer with its memory and a cairo surface over it.
final class OverlayBuffer {
    let memory: SharedMemory
    let buffer: OpaquePointer
    let cairoSurface: OpaquePointer
    let width: Int
    let height: Int
    /// Whether the compositor holds it (attached and not yet released).
    var busy = false
    /// What the frame last drawn into it covers: cleared when it is drawn into again.
    var painted: OverlayRect?

    init(shm: OpaquePointer, width: Int, height: Int) throws(WaylandError) {
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)))
        guard stride > 0 else { throw WaylandError("no stride for a \(width)-pixel-wide buffer") }
        do { memory = try SharedMemory(name: "edgeswipe-overlay", byteCount: stride * height) } catch {
            throw WaylandError("cannot make a \(width)x\(height) buffer: \(error)")
        }
        guard let pool = wl_shm_create_pool(shm, memory.descriptor.rawValue, Int32(memory.byteCount)) else {
            throw WaylandError("wl_shm.create_pool failed")
        }
        defer { wl_shm_pool_destroy(pool) }
        // cairo's ARGB32 is wl_shm's ARGB8888: premultiplied, native-endian 32-bit pixels.
        guard let buffer = wl_shm_pool_create_buffer(pool, 0, Int32(width), Int32(height), Int32(stride), WL_SHM_FORMAT_ARGB8888.rawValue)
        else { throw WaylandError("wl_shm_pool.create_buffer failed") }
        guard let surface = cairo_image_surface_create_for_data(
            memory.bytes.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, Int32(width), Int32(height), Int32(stride)),
            cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
        else {
            wl_buffer_destroy(buffer)
            throw WaylandError("cairo cannot draw into a \(width)x\(height) buffer")
        }
        self.buffer = buffer
        self.cairoSurface = surface
        self.width = width
        self.height = height
        wl_buffer_add_listener(buffer, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Gives the buffer back (the compositor keeps its own mapping while it still shows it).
    func destroy() {
        cairo_surface_destroy(cairoSurface)
        wl_buffer_destroy(buffer)
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wl_buffer_listener> = {
        let listener = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_buffer_listener(release: { data, _ in
            guard let data else { return }
            Unmanaged<OverlayBuffer>.fromOpaque(data).takeUnretainedValue().busy = false
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

    /// `812 frames (3 surfaces, 6 buffers); stream line -> commit p50 0.41 ms, p99 2.30 ms (n 812); compositor frame
    /// interval p50 16 ms`: one line for the log, which the benchmark reads.
    public var description: String {
        func ms(_ us: UInt64?) -> String { us.map { String(format2: Double($0) / 1000) } ?? "-" }
        return "\(frames) frames (\(surfaces) surfaces, \(buffers) buffers); stream line -> commit p50 \(ms(latency.percentile(50))) ms, "
            + "p99 \(ms(latency.percentile(99))) ms (n \(latency.values.count)); compositor frame interval p50 "
            + "\(frameIntervalMS.percentile(50).map(String.init) ?? "-") ms (n \(frameIntervalMS.values.count))"
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
