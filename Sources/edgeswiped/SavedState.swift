import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeProtocol

// The state file's format: what `state.json` holds, how it is written and read back (with the protocol's JSON
// writer and parser), and how a saved state is checked against the configuration and against the limits every state
// is held to (`StateLimits`, the same ones requests and the configuration pass). No I/O here: StateStore.swift reads
// and writes the file.

/// The on-disk form: one object per container, with exactly the fields of its kind, like the protocol's `state`
/// message, so that an administrator can read (and, with the daemon stopped, edit) the file.
struct SavedState: Equatable {
    static let currentVersion = 1
    /// The largest state this daemon can save fits well within it (StateLimits); anything larger is not ours.
    static let maxFileBytes = StateLimits.maxStateFileBytes

    struct SavedContainer: Equatable {
        var name: String
        var kind: String
        var stack: [String]?
        var tabs: [String]?
        var selected: Int?
        var base: String?
        var presented: [Presentation]?
        var children: [String]?
        var active: Int?

        init(_ container: Container) {
            name = container.name
            kind = container.content.kind
            switch container.content {
            case .navigation(let stack): self.stack = stack
            case .tabs(let tabs, let selected): (self.tabs, self.selected) = (tabs, selected)
            case .modal(let base, let presented): (self.base, self.presented) = (base, presented)
            case .custom(let children, let active): (self.children, self.active) = (children, active)
            }
        }
    }

    var version: Int
    /// Seconds since 1970, for people reading the file.
    var savedAt: Int?
    /// Counts the states saved in this state directory, across restarts: each save is numbered one past the
    /// file it replaces, so a file that went back (an older state written over a newer one) would show. Absent
    /// from files written before it existed (read as 0).
    var generation: UInt64?
    var containers: [SavedContainer]
    /// Rotations clients set (`set-rotation`), by device identity, oldest first; absent in files written before
    /// the daemon had them, and when none is set.
    var rotations: [RememberedRotation]?

    /// The saved rotations within the limits every state is held to: at most
    /// ``StateLimits/maxRememberedRotations`` (the newest), names as long as a device's name may be.
    var restoredRotations: [RememberedRotation] {
        (rotations ?? []).suffix(StateLimits.maxRememberedRotations).map { r in
            let d = r.device
            return RememberedRotation(
                device: DeviceIdentity(name: d.name, bus: d.bus, vendor: d.vendor, product: d.product, phys: d.phys, uniq: d.uniq),
                rotation: r.rotation)
        }
    }
}

/// Why a state file cannot be written or used.
enum StateFormatError: Error, Equatable, CustomStringConvertible {
    /// The encoded state is larger than a restore accepts (a bug: `StateLimits` keeps it well below).
    case tooLarge(bytes: Int)
    /// Not a state file this daemon can read: the reason, and where in the file.
    case invalid(String)
    /// A state file of another version.
    case unsupportedVersion(Int)

    var description: String {
        switch self {
        case .tooLarge(let bytes): "the state is \(bytes) bytes, over the \(SavedState.maxFileBytes) a restore accepts"
        case .invalid(let reason): "it is not a valid state file (\(reason))"
        case .unsupportedVersion(let version):
            "it has version \(version); this edgeswiped reads version \(SavedState.currentVersion)"
        }
    }
}

extension SavedState {
    /// The file's bytes for `containers`: keys sorted, indented, a final newline.
    static func encode(
        _ containers: [Container], rotations: [RememberedRotation] = [], savedAt: Int, generation: UInt64
    ) throws(StateFormatError) -> [UInt8] {
        let state = SavedState(
            version: currentVersion, savedAt: savedAt, generation: generation, containers: containers.map(SavedContainer.init),
            rotations: rotations.isEmpty ? nil : rotations)
        var writer = JSONWriter(capacity: 4096)
        writer.value(state.json, pretty: true)
        writer.byte(UInt8(ascii: "\n"))
        guard writer.count <= maxFileBytes else { throw .tooLarge(bytes: writer.count) }
        return writer.bytes
    }

    /// A state file's contents, if they are a state of this version.
    static func decode(_ bytes: [UInt8]) throws(StateFormatError) -> SavedState {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes, maxDepth: 16) } catch { throw .invalid("\(error)") }
        return try SavedState(json: json)
    }
}

// MARK: JSON

// The file's keys are those of its first version (written with Foundation's `JSONEncoder` then; a test restores
// such a file): a field without a value is left out, and fields this daemon does not know are ignored, so that a
// file written by a newer daemon of the same version still reads.

extension SavedState {
    var json: JSONValue {
        var file: [String: JSONValue] = ["version": .integer(Int64(version)), "containers": .array(containers.map(\.json))]
        if let savedAt { file["saved_at"] = .integer(Int64(savedAt)) }
        if let generation { file["generation"] = .integer(Int64(clamping: generation)) }
        if let rotations {
            file["rotations"] = .array(rotations.map { r in
                var device: [String: JSONValue] = [
                    "name": .string(r.device.name), "bus": .integer(Int64(r.device.bus)),
                    "vendor": .integer(Int64(r.device.vendor)), "product": .integer(Int64(r.device.product)),
                ]
                if let phys = r.device.phys { device["phys"] = .string(phys) }
                if let uniq = r.device.uniq { device["uniq"] = .string(uniq) }
                return .object(["device": .object(device), "rotation": .integer(Int64(r.rotation.rawValue))])
            })
        }
        return .object(file)
    }

    /// Reads the file's JSON; the version first, so that a file of another version says so whatever its shape.
    init(json: JSONValue) throws(StateFormatError) {
        let file = try StateFields(json, at: "the file")
        version = try file.required("version", StateFields.integer)
        guard version == Self.currentVersion else { throw .unsupportedVersion(version) }
        savedAt = try file.optional("saved_at", StateFields.integer)
        generation = try file.optional("generation", StateFields.integer)
        containers = try file.required("containers", StateFields.array(of: SavedContainer.init(json:at:)))
        rotations = try file.optional("rotations", StateFields.array(of: { (json, place) throws(StateFormatError) in
            let r = try StateFields(json, at: place)
            let device = try r.required("device") { (json, place) throws(StateFormatError) in
                let d = try StateFields(json, at: place)
                return DeviceIdentity(
                    name: try d.required("name", StateFields.string), bus: try d.required("bus", StateFields.integer),
                    vendor: try d.required("vendor", StateFields.integer), product: try d.required("product", StateFields.integer),
                    phys: try d.optional("phys", StateFields.string), uniq: try d.optional("uniq", StateFields.string))
            }
            return RememberedRotation(device: device, rotation: try r.required("rotation", StateFields.numbered))
        }))
    }
}

extension SavedState.SavedContainer {
    var json: JSONValue {
        var container: [String: JSONValue] = ["name": .string(name), "kind": .string(kind)]
        func strings(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
        if let stack { container["stack"] = strings(stack) }
        if let tabs { container["tabs"] = strings(tabs) }
        if let selected { container["selected"] = .integer(Int64(selected)) }
        if let base { container["base"] = .string(base) }
        if let presented {
            container["presented"] = .array(presented.map { p in
                .object([
                    "scene": .string(p.scene), "style": .string(p.style.rawValue),
                    "frame": .object([
                        "x": .number(p.frame.x), "y": .number(p.frame.y), "width": .number(p.frame.width), "height": .number(p.frame.height),
                    ]),
                ])
            })
        }
        if let children { container["children"] = strings(children) }
        if let active { container["active"] = .integer(Int64(active)) }
        return .object(container)
    }

    init(json: JSONValue, at place: String) throws(StateFormatError) {
        let c = try StateFields(json, at: place)
        name = try c.required("name", StateFields.string)
        kind = try c.required("kind", StateFields.string)
        stack = try c.optional("stack", StateFields.array(of: StateFields.string))
        tabs = try c.optional("tabs", StateFields.array(of: StateFields.string))
        selected = try c.optional("selected", StateFields.integer)
        base = try c.optional("base", StateFields.string)
        presented = try c.optional("presented", StateFields.array(of: { (json, place) throws(StateFormatError) in
            let p = try StateFields(json, at: place)
            let frame = try p.required("frame") { (json, place) throws(StateFormatError) in
                let f = try StateFields(json, at: place)
                return NormalizedRect(
                    x: try f.required("x", StateFields.number), y: try f.required("y", StateFields.number),
                    width: try f.required("width", StateFields.number), height: try f.required("height", StateFields.number))
            }
            return Presentation(
                scene: try p.required("scene", StateFields.string),
                style: try p.required("style", StateFields.named), frame: frame)
        }))
        children = try c.optional("children", StateFields.array(of: StateFields.string))
        active = try c.optional("active", StateFields.integer)
    }
}

/// One object of the state file, read field by field; a wrong field is an error that names its place:
/// `containers[1].presented[0].frame.x: expected a number, got a string`.
private struct StateFields {
    let members: [String: JSONValue]
    let place: String

    init(_ json: JSONValue, at place: String) throws(StateFormatError) {
        guard case .object(let members) = json else { throw Self.expected("an object", json, at: place) }
        self.members = members
        self.place = place
    }

    func required<T>(_ key: String, _ read: (JSONValue, String) throws(StateFormatError) -> T) throws(StateFormatError) -> T {
        guard let json = members[key] else { throw .invalid("\(path(key)) is missing") }
        return try read(json, path(key))
    }

    /// Absent or `null`: `nil`.
    func optional<T>(_ key: String, _ read: (JSONValue, String) throws(StateFormatError) -> T) throws(StateFormatError) -> T? {
        switch members[key] {
        case nil, .null?: return nil
        case let json?: return try read(json, path(key))
        }
    }

    private func path(_ key: String) -> String { place == "the file" ? key : "\(place).\(key)" }

    static func expected(_ what: String, _ json: JSONValue, at place: String) -> StateFormatError {
        .invalid("\(place): expected \(what), got \(json.kindName)")
    }

    static func string(_ json: JSONValue, at place: String) throws(StateFormatError) -> String {
        guard case .string(let s) = json else { throw expected("a string", json, at: place) }
        return s
    }

    static func number(_ json: JSONValue, at place: String) throws(StateFormatError) -> Double {
        guard let d = json.doubleValue else { throw expected("a number", json, at: place) }
        return d
    }

    /// An integer that fits `I`; a fraction or a number out of range is an error.
    static func integer<I: FixedWidthInteger>(_ json: JSONValue, at place: String) throws(StateFormatError) -> I {
        guard case .integer(let i) = json else { throw expected("an integer", json, at: place) }
        guard let value = I(exactly: i) else { throw .invalid("\(place): \(i) is out of range") }
        return value
    }

    /// A name from a fixed set (a presentation's style).
    static func named<R: RawRepresentable>(_ json: JSONValue, at place: String) throws(StateFormatError) -> R
    where R.RawValue == String {
        let name = try string(json, at: place)
        guard let value = R(rawValue: name) else { throw .invalid("\(place): unknown value \"\(name)\"") }
        return value
    }

    /// A number from a fixed set (a rotation's degrees).
    static func numbered<R: RawRepresentable>(_ json: JSONValue, at place: String) throws(StateFormatError) -> R
    where R.RawValue == Int {
        let number: Int = try integer(json, at: place)
        guard let value = R(rawValue: number) else { throw .invalid("\(place): unknown value \(number)") }
        return value
    }

    /// An array whose items `element` reads; an item's place is `place[i]`.
    static func array<T>(
        of element: @escaping (JSONValue, String) throws(StateFormatError) -> T
    ) -> (JSONValue, String) throws(StateFormatError) -> [T] {
        { (json, place) throws(StateFormatError) in
            guard case .array(let items) = json else { throw expected("an array", json, at: place) }
            var values: [T] = []
            values.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { values.append(try element(item, "\(place)[\(i)]")) }
            return values
        }
    }
}

// MARK: Restoring

/// Why one saved container was not restored.
enum RestoreOutcome: Equatable {
    case restored(ContainerContent)
    case skipped(String)
}

extension SavedState.SavedContainer {
    /// The saved state applied to the configured container of the same name and kind: scenes are matched by
    /// name, so a configuration that reordered tabs still restores the selected one, and one that changed the
    /// root of a stack or the base of a modal container starts that container afresh.
    func restore(onto configured: ContainerContent) -> RestoreOutcome {
        // The same limits requests and the configuration are held to (StateLimits): what was saved passed them.
        func validName(_ s: String) -> Bool { StateLimits.nameProblem(s) == nil }
        switch configured {
        case .navigation(let configuredStack):
            guard let stack, !stack.isEmpty, stack.count <= StateLimits.maxStackDepth, stack.allSatisfy(validName) else {
                return .skipped("the saved stack is empty or invalid")
            }
            guard stack.first == configuredStack.first else {
                return .skipped("the configured root is '\(configuredStack.first ?? "")', the saved one '\(stack[0])'")
            }
            return .restored(.navigation(stack: stack))
        case .tabs(let configuredTabs, _):
            guard let tabs, let selected, tabs.indices.contains(selected) else { return .skipped("the saved selection is invalid") }
            guard let index = configuredTabs.firstIndex(of: tabs[selected]) else {
                return .skipped("the saved tab '\(tabs[selected])' is no longer configured")
            }
            return .restored(.tabs(tabs: configuredTabs, selected: index))
        case .modal(let configuredBase, _):
            guard let base, base == configuredBase else {
                return .skipped("the configured base is '\(configuredBase)', the saved one '\(base ?? "")'")
            }
            let presented = self.presented ?? []
            var seen: Set<String> = [base]
            for p in presented {
                guard validName(p.scene), seen.insert(p.scene).inserted, p.frame.validationProblem == nil
                else { return .skipped("the saved presentations are invalid") }
            }
            guard presented.count <= StateLimits.maxPresented else { return .skipped("the saved presentations are invalid") }
            return .restored(.modal(base: base, presented: presented))
        case .custom(let configuredChildren, _):
            guard let children, let active, children.indices.contains(active) else { return .skipped("the saved active child is invalid") }
            guard let index = configuredChildren.firstIndex(of: children[active]) else {
                return .skipped("the saved child '\(children[active])' is no longer configured")
            }
            return .restored(.custom(children: configuredChildren, active: index))
        }
    }
}

extension SavedState {
    /// What restoring did to one container, in the order a restore logs them.
    enum RestoreNote: Equatable {
        case restored(container: String, visibleScene: String)
        case kindChanged(container: String, configured: String, saved: String)
        case overLimit(container: String, measure: Int)
        case skipped(container: String, reason: String)
        /// A saved container the configuration no longer has.
        case dropped(container: String)
    }

    /// `configuration` with the saved state of each container whose name and kind still match in place of the
    /// configured one, and what was done with each. A configuration with more or larger containers than the one
    /// that saved could pass the state's limit with the saved state in place: containers that would are started
    /// afresh.
    func restore(into configuration: EngineConfiguration) -> (EngineConfiguration, [RestoreNote]) {
        var configuration = configuration
        var notes: [RestoreNote] = []
        var size = StateLimits.size(of: configuration.containers)
        for (i, container) in configuration.containers.enumerated() {
            guard let s = containers.first(where: { $0.name == container.name }) else { continue }
            guard s.kind == container.content.kind else {
                notes.append(.kindChanged(container: container.name, configured: container.content.kind, saved: s.kind))
                continue
            }
            switch s.restore(onto: container.content) {
            case .restored(let content):
                let grown = size - StateLimits.size(of: container) + StateLimits.size(of: Container(name: container.name, content: content))
                guard grown <= StateLimits.maxStateBytes else {
                    notes.append(.overLimit(container: container.name, measure: grown))
                    continue
                }
                size = grown
                configuration.containers[i].content = content
                notes.append(.restored(container: container.name, visibleScene: content.visibleScene))
            case .skipped(let reason):
                notes.append(.skipped(container: container.name, reason: reason))
            }
        }
        for s in containers where !configuration.containers.contains(where: { $0.name == s.name }) {
            notes.append(.dropped(container: s.name))
        }
        return (configuration, notes)
    }
}
