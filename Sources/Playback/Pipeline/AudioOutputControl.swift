/// One audio output as `outputs` shows it.
package struct OutputStatus: Sendable, Equatable {
    /// The output's number (`outputid`), in configuration order.
    package var id: Int
    /// `outputname`.
    package var name: String
    /// `plugin`.
    package var plugin: String
    /// `outputenabled`.
    package var enabled: Bool
    /// Why the output last failed, if it did.
    package var error: String?
    /// Whether the output has a mixer (software or hardware): switching it raises idle
    /// `mixer` as well, as in MPD.
    package var hasMixer = false
    /// `attribute:` lines (``AudioOutputDevice/attributes``).
    package var attributes: [OutputAttribute] = []
}

/// The audio outputs the server can switch on and off (`outputs`, `enableoutput`, …).
package protocol AudioOutputControl: AnyObject, Sendable {
    /// Every configured output.
    var outputStatuses: [OutputStatus] { get }
    /// Enables or disables output `id`. - Returns: whether it changed; `nil` for no such output.
    func setOutput(_ id: Int, enabled: Bool) -> Bool?
    /// Whether volume can be changed: an output has a software or a working hardware mixer.
    var hasMixer: Bool { get }
    /// `outputset`: sets attribute `name` of output `id` (which exists), with the plugin's
    /// errors.
    func setAttribute(output id: Int, name: String, value: String) throws(OutputAttributeError)
}
