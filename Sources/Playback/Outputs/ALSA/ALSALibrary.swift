import CALSA

/// Facts about the ALSA library Tonearm is linked with.
package enum ALSALibrary {
    /// The version of the linked alsa-lib, such as `1.2.8`.
    package static var version: String { String(cString: snd_asoundlib_version()) }
}
