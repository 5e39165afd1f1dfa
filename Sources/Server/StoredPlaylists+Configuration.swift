package import MediaLibrary
import MusicModel
package import Settings

extension StoredPlaylists {
    /// The stored playlists as the configuration places them (`playlist_directory`,
    /// `max_playlist_length`, `save_absolute_paths_in_playlists`); every change raises idle
    /// `stored_playlist`.
    /// - Parameter library: its music directory is the one entries resolve against;
    ///   without it, `music_directory`.
    package convenience init(configuration: TonearmConfiguration, library: Library?, idleBus: IdleBus) {
        self.init(
            directory: configuration.playlistDirectory,
            maximumLength: configuration.maxPlaylistLength,
            musicDirectory: library?.settings.musicDirectory ?? configuration.musicDirectory,
            saveAbsolutePaths: configuration.saveAbsolutePathsInPlaylists,
            onChange: { [idleBus] in idleBus.emit(.storedPlaylist) }
        )
    }
}
