// The measure of the containers' state that `StateLimits.maxStateBytes` bounds: the limits are the vocabulary's
// (requests are checked against them before they reach the engine), the containers the engine's.
extension StateLimits {
    /// What ``size(of:)`` adds to each name in a list (quotes, separator, indentation in the file).
    static let entryAllowance = 16
    /// What it adds to each container (its name's allowance, kind, field names, selection index).
    static let containerAllowance = 128
    /// What it adds to each presentation (its style and frame).
    static let presentationAllowance = 256

    /// The measure of a container's state that ``maxStateBytes`` bounds.
    public static func size(of container: Container) -> Int {
        func names(_ list: [String]) -> Int { list.reduce(0) { $0 + $1.utf8.count + entryAllowance } }
        var total = container.name.utf8.count + containerAllowance
        switch container.content {
        case .navigation(let stack): total += names(stack)
        case .tabs(let tabs, _): total += names(tabs)
        case .modal(let base, let presented):
            total += base.utf8.count + entryAllowance
            for p in presented { total += p.scene.utf8.count + entryAllowance + presentationAllowance }
        case .custom(let children, _): total += names(children)
        }
        return total
    }

    /// The measure of the whole state.
    public static func size(of containers: [Container]) -> Int {
        containers.reduce(0) { $0 + size(of: $1) }
    }
}
