import CALSA

/// Facts about the ALSA library Tonearm is linked with.
public enum ALSALibrary {
    /// The version of the linked alsa-lib, such as `1.2.8`.
    public static var version: String { String(cString: snd_asoundlib_version()) }
}
