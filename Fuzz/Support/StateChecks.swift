// Shared by the targets that drive the containers (requests, gestures): the state every hello, status reply and
// state file carries stays within StateLimits, whatever the input.
import EdgeSwipeCore

/// Every container within ``StateLimits``: names that name, bounded stacks, presentations and choices, a
/// selection that exists, presented frames that pass validation, and the whole state's size under its cap.
func checkStateLimits(_ containers: [Container]) {
    precondition(containers.count <= StateLimits.maxContainers, "\(containers.count) containers")
    let size = StateLimits.size(of: containers)
    precondition(size <= StateLimits.maxStateBytes, "the state measures \(size) > \(StateLimits.maxStateBytes)")
    func name(_ s: String, _ what: String) {
        if let problem = StateLimits.nameProblem(s) { preconditionFailure("\(what) \"\(s)\" \(problem)") }
    }
    for c in containers {
        name(c.name, "container")
        switch c.content {
        case .navigation(let stack):
            precondition(!stack.isEmpty, "container \(c.name): an empty stack")
            precondition(stack.count <= StateLimits.maxStackDepth, "container \(c.name): a stack of \(stack.count)")
            for s in stack { name(s, "scene") }
        case .tabs(let tabs, let selected):
            precondition(tabs.count <= StateLimits.maxChoices, "container \(c.name): \(tabs.count) tabs")
            precondition(tabs.indices.contains(selected), "container \(c.name): tab \(selected) of \(tabs.count) selected")
            for s in tabs { name(s, "tab") }
        case .modal(let base, let presented):
            name(base, "base")
            precondition(presented.count <= StateLimits.maxPresented, "container \(c.name): \(presented.count) presented")
            for p in presented {
                name(p.scene, "presented scene")
                if let problem = p.frame.validationProblem { preconditionFailure("container \(c.name): frame \(problem)") }
            }
        case .custom(let children, let active):
            precondition(children.count <= StateLimits.maxChoices, "container \(c.name): \(children.count) children")
            precondition(children.indices.contains(active), "container \(c.name): child \(active) of \(children.count) active")
            for s in children { name(s, "child") }
        }
    }
}

/// The engine's snapshot is its state: the same containers, and one running summary per running transition, each
/// naming a container that exists, with a percent in 0...1.
func checkSnapshot(_ engine: Engine) {
    let snapshot = engine.snapshot
    precondition(snapshot.containers == engine.containers, "the snapshot's containers are not the engine's")
    precondition(snapshot.time == engine.now)
    var busy: Set<String> = []
    for r in snapshot.running {
        precondition(engine.containers.contains { $0.name == r.container }, "transition \(r.id.rawValue) runs in a container that is gone")
        precondition(busy.insert(r.container).inserted, "two transitions run in container \(r.container)")
        let p = r.percent.value
        precondition(p.isFinite && p >= 0 && p <= 1, "running percent \(p)")
    }
    checkStateLimits(engine.containers)
}
