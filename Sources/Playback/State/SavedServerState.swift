/// The whole state file: the default partition in MPD's format, then one block per other
/// partition, which MPD has no place for (its state file keeps the default partition only).
///
/// A block is Tonearm's extension, made so that MPD reading the file still restores the
/// default partition and nothing else: it starts with `partition_begin: NAME`, ends with
/// `partition_end`, and in between holds the partition's state in the default partition's
/// format with every line indented by a tab. MPD matches its keys at the start of a line, so
/// it only logs the block's lines as unrecognized; none of them can reach its queue (its
/// queue reader stops at the default partition's `playlist_end`, which comes first).
package struct SavedServerState: Sendable, Equatable {
    /// One partition besides `default`.
    package struct Partition: Sendable, Equatable {
        /// Its name.
        package var name: String
        /// Its queue, player state and the outputs it holds (`audio_device_state` lines, in
        /// the order it lists them).
        package var state: SavedPlayerState

        /// Creates a saved partition.
        package init(name: String, state: SavedPlayerState) {
            self.name = name
            self.state = state
        }
    }

    /// The default partition, and the outputs it holds.
    package var main: SavedPlayerState
    /// The other partitions, in the order they were made.
    package var partitions: [Partition]

    /// Creates a saved state.
    package init(main: SavedPlayerState, partitions: [Partition] = []) {
        self.main = main
        self.partitions = partitions
    }
}

extension StateFile {
    static let partitionBegin = "partition_begin: "
    static let partitionEnd = "partition_end"
    /// How an MPD newer than 0.24 starts a partition's section.
    static let partitionSection = "partition: "

    /// The file's text for the whole server.
    package static func render(_ state: SavedServerState) -> String {
        var text = render(state.main)
        for partition in state.partitions {
            text += partitionBegin + partition.name + "\n"
            for line in render(partition.state).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                text += "\t" + line + "\n"
            }
            text += partitionEnd + "\n"
        }
        return text
    }

    /// Parses a whole state file: MPD's (the default partition only), Tonearm's, or one from
    /// an MPD newer than 0.24, which starts each other partition with a `partition: NAME` line
    /// followed by that partition's lines unindented (so those files restore their partitions
    /// rather than pour them into the default one). A Tonearm block without its end runs to
    /// the end of the file; an unnamed partition is skipped.
    package static func parseServer(_ text: String) -> SavedServerState {
        enum Target { case main, block, section }
        var main: [Substring] = []
        var partitions: [(name: String, lines: [Substring])] = []
        var target = Target.main
        for line in lines(of: text) {
            if line.utf8.starts(with: partitionBegin.utf8) {
                partitions.append((String(line.dropFirst(partitionBegin.count)), []))
                target = .block
            } else if target == .block && bytesEqual(line, partitionEnd) {
                target = .main
            } else if target != .block && line.utf8.starts(with: partitionSection.utf8) {
                partitions.append((String(line.dropFirst(partitionSection.count)), []))
                target = .section
            } else if target == .main {
                main.append(line)
            } else {
                partitions[partitions.count - 1].lines.append(
                    target == .block && line.utf8.first == UInt8(ascii: "\t") ? line.dropFirst() : line)
            }
        }
        return SavedServerState(
            main: parse(lines: main),
            partitions: partitions.filter { !$0.name.isEmpty }.map {
                SavedServerState.Partition(name: $0.name, state: parse(lines: $0.lines))
            })
    }
}
