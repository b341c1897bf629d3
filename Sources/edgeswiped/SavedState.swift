import EdgeSwipeCore
import EdgeSwipeInput
import FoundationEssentials

// The state file's format: what `state.json` holds, how it is written and read back, and how a saved state is
// checked against the configuration and against the limits every state is held to (`StateLimits`, the same ones
// requests and the configuration pass). No I/O here: StateStore.swift reads and writes the file.

/// The on-disk form: one object per container, with exactly the fields of its kind, like the protocol's `state`
/// message, so that an administrator can read (and, with the daemon stopped, edit) the file.
struct SavedState: Codable, Equatable {
    static let currentVersion = 1
    /// The largest state this daemon can save fits well within it (StateLimits); anything larger is not ours.
    static let maxFileBytes = StateLimits.maxStateFileBytes

    struct SavedContainer: Codable, Equatable {
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

    enum CodingKeys: String, CodingKey {
        case version, savedAt = "saved_at", generation, containers, rotations
    }

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
    /// The encoder failed (a bug: every state encodes).
    case unencodable
    /// The encoded state is larger than a restore accepts (a bug: `StateLimits` keeps it well below).
    case tooLarge(bytes: Int)
    /// Not a state file this daemon can read: the decoder's reason.
    case invalid(String)
    /// A state file of another version.
    case unsupportedVersion(Int)

    var description: String {
        switch self {
        case .unencodable: "the state cannot be encoded"
        case .tooLarge(let bytes): "the state is \(bytes) bytes, over the \(SavedState.maxFileBytes) a restore accepts"
        case .invalid(let reason): "it is not a valid state file (\(reason))"
        case .unsupportedVersion(let version):
            "it has version \(version); this edgeswiped reads version \(SavedState.currentVersion)"
        }
    }
}

extension SavedState {
    /// The file's bytes for `containers`: sorted keys, indented, a final newline.
    static func encode(
        _ containers: [Container], rotations: [RememberedRotation] = [], savedAt: Int, generation: UInt64
    ) throws(StateFormatError) -> [UInt8] {
        let state = SavedState(
            version: currentVersion, savedAt: savedAt, generation: generation, containers: containers.map(SavedContainer.init),
            rotations: rotations.isEmpty ? nil : rotations)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        var bytes: [UInt8]
        do { bytes = Array(try encoder.encode(state)) } catch { throw .unencodable }
        bytes.append(UInt8(ascii: "\n"))
        guard bytes.count <= maxFileBytes else { throw .tooLarge(bytes: bytes.count) }
        return bytes
    }

    /// A state file's contents, if they are a state of this version.
    static func decode(_ bytes: [UInt8]) throws(StateFormatError) -> SavedState {
        let state: SavedState
        do { state = try JSONDecoder().decode(SavedState.self, from: Data(bytes)) } catch { throw .invalid(describe(error)) }
        guard state.version == currentVersion else { throw .unsupportedVersion(state.version) }
        return state
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.debugDescription
        case DecodingError.keyNotFound(let key, _): return "'\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "\(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        default: return "\(error)"
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
