package import MusicModel

extension SortOrder {
    /// Parses the operand of `sort` (MPD's `ParseSortTag`): a tag name, `Last-Modified` or
    /// `Added`, and with `allowsPriority` (the queue's `playlistfind`/`playlistsearch`) `prio`,
    /// all without ASCII case; a leading `-` sorts descending.
    ///
    /// - Throws: ACK 2 `Unknown sort tag`.
    package static func parse(_ text: String, allowsPriority: Bool) throws(MPDError) -> SortOrder {
        var name = Substring(text)
        let descending = name.first == "-"
        if descending { name = name.dropFirst() }
        if ASCII.equalsIgnoringCase(name, "Last-Modified") { return SortOrder(.lastModified, descending: descending) }
        if ASCII.equalsIgnoringCase(name, "Added") { return SortOrder(.added, descending: descending) }
        if allowsPriority, ASCII.equalsIgnoringCase(name, "prio") {
            return SortOrder(.priority, descending: descending)
        }
        guard let tag = ASCII.tag(named: name) else { throw MPDError(.argument, "Unknown sort tag") }
        return SortOrder(.tag(tag), descending: descending)
    }
}

extension DatabaseSelection {
    /// Parses the arguments of `find`, `search`, `findadd`, `searchadd` and `searchaddpl`
    /// (after the playlist name for the last) as MPD does: from the end it removes
    /// `position POS` (only when `allowsPosition`), then `window START:END`, then `sort TYPE`;
    /// what remains is the filter, which must not be empty. The keywords are case-sensitive.
    ///
    /// The position is returned unparsed, as its meaning depends on the queue.
    ///
    /// `allowsPriority` takes `sort prio` (the queue's `playlistfind` and `playlistsearch`).
    ///
    /// - Throws: ACK 2: the range messages of ``Arguments/range(_:)``, `Unknown sort tag`, and
    ///   the filter messages of ``FilterExpression/parse(_:foldCase:)``, in that order of checking.
    package static func parse(
        _ arguments: ArraySlice<String>, foldCase: Bool, allowsPosition: Bool, allowsPriority: Bool = false
    ) throws(MPDError) -> DatabaseSelection {
        var arguments = arguments
        var position: String?
        if allowsPosition, let value = arguments.popModifier("position") { position = value }
        var window: RangeArgument?
        if let value = arguments.popModifier("window") { window = try Arguments.range(value) }
        var sort: SortOrder?
        if let value = arguments.popModifier("sort") {
            sort = try SortOrder.parse(value, allowsPriority: allowsPriority)
        }
        let filter = try FilterExpression.parse(arguments, foldCase: foldCase)
        return DatabaseSelection(filter: filter, sort: sort, window: window, position: position)
    }
}

extension ListSelection {
    /// Parses the arguments of `list` (MPD's `handle_list`): `TYPE [FILTER] [group TAG]...
    /// [window START:END]`, compared case-sensitively from the end; the filter is exact
    /// (`find`-like).
    ///
    /// `TYPE` is a tag name or `file`/`filename` (song URIs, for which MPD reads every further
    /// argument as the filter, without `group` or `window`). A single argument after `TYPE`
    /// that does not start with `(` is the pre-0.12 form `list album ARTIST`, meaning
    /// `Artist == ARTIST`, and only valid for `Album`.
    ///
    /// - Throws: ACK 2: `Unknown tag type: X` (for `TYPE` or a group), the range messages,
    ///   `should be "Album" for 3 arguments`, `Conflicting group` (a group equal to `TYPE` or
    ///   given twice), and the filter messages.
    package static func parse(_ arguments: ArraySlice<String>) throws(MPDError) -> ListSelection {
        guard let typeName = arguments.first else { throw MPDError(.argument, "too few arguments for \"list\"") }
        var arguments = arguments.dropFirst()

        if ASCII.equalsIgnoringCase(typeName, "file") || ASCII.equalsIgnoringCase(typeName, "filename") {
            let filter = arguments.isEmpty ? nil : try FilterExpression.parse(arguments, foldCase: false)
            return ListSelection(subject: .uri, filter: filter)
        }
        guard let tag = ASCII.tag(named: typeName) else { throw MPDError(.argument, "Unknown tag type: \(typeName)") }

        var window: RangeArgument?
        if let value = arguments.popModifier("window") { window = try Arguments.range(value) }

        var filter: FilterExpression?
        if arguments.count == 1, let artist = arguments.first, artist.utf8.first != UInt8(ascii: "(") {
            guard tag == .album else {
                throw MPDError(.argument, "should be \(TagType.album.name.mpdQuoted) for 3 arguments")
            }
            filter = .tag(.artist, StringPredicate(.equals, artist, foldCase: false))
            arguments = []
        }

        // Removed from the end, so collected last-first.
        var groups: [TagType] = []
        while let name = arguments.popModifier("group") {
            guard let group = ASCII.tag(named: name) else { throw MPDError(.argument, "Unknown tag type: \(name)") }
            guard group != tag, !groups.contains(group) else { throw MPDError(.argument, "Conflicting group") }
            groups.append(group)
        }

        if !arguments.isEmpty { filter = try FilterExpression.parse(arguments, foldCase: false) }
        return ListSelection(subject: .tag(tag), filter: filter, groups: groups.reversed(), window: window)
    }
}

extension CountSelection {
    /// Parses the arguments of `count` and `searchcount`: `FILTER [group TAG]`. The filter
    /// may be left out when a group is given (`count group artist` counts every song).
    ///
    /// - Throws: ACK 2: `Unknown tag type: X` for the group, `Incorrect number of filter
    ///   arguments` when there is neither filter nor group, and the filter messages.
    package static func parse(_ arguments: ArraySlice<String>, foldCase: Bool) throws(MPDError) -> CountSelection {
        var arguments = arguments
        var group: TagType?
        if let name = arguments.popModifier("group") {
            guard let tag = ASCII.tag(named: name) else { throw MPDError(.argument, "Unknown tag type: \(name)") }
            group = tag
        }
        if arguments.isEmpty, group != nil { return CountSelection(filter: nil, group: group) }
        return CountSelection(filter: try FilterExpression.parse(arguments, foldCase: foldCase), group: group)
    }
}

extension ArraySlice<String> {
    /// Removes a trailing `keyword VALUE` pair and returns VALUE (of `find`, `list` and
    /// `smartplaylist`); `nil` (and no change) when
    /// the second-to-last argument is not exactly `keyword`.
    mutating func popModifier(_ keyword: String) -> String? {
        guard count >= 2, self[endIndex - 2].utf8.elementsEqual(keyword.utf8), let value = last else { return nil }
        removeLast(2)
        return value
    }
}
