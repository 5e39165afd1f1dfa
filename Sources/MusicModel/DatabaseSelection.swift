/// The sort key of `find`/`search`/`playlistfind` (`sort TYPE`, `-TYPE` descending).
package struct SortOrder: Sendable, Equatable {
    /// What songs are compared by.
    package enum Key: Sendable, Equatable {
        /// A tag's sort value (byte order; `Track` and `Disc` numerically).
        case tag(TagType)
        /// `Last-Modified`.
        case lastModified
        /// `Added`.
        case added
        /// `prio` (queue commands only).
        case priority
    }

    /// What songs are compared by.
    package var key: Key
    /// A leading `-`.
    package var descending: Bool

    /// Creates a sort order.
    package init(_ key: Key, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }
}

/// The arguments of `find`, `search`, `findadd`, `searchadd` and `searchaddpl` after the
/// filter has been separated from its trailing modifiers (MPD's `ParseDatabaseSelection`).
package struct DatabaseSelection: Sendable, Equatable {
    /// The filter; `nil` matches every song.
    package var filter: FilterExpression?
    /// `sort TYPE`.
    package var sort: SortOrder?
    /// `window START:END`.
    package var window: RangeArgument?
    /// `position POS`, unparsed (its meaning depends on the queue).
    package var position: String?

    /// Creates a selection.
    package init(
        filter: FilterExpression?, sort: SortOrder? = nil, window: RangeArgument? = nil, position: String? = nil
    ) {
        self.filter = filter
        self.sort = sort
        self.window = window
        self.position = position
    }
}

/// What `list` asks for: `list TYPE [FILTER] [group TAG]... [window S:E]`.
package struct ListSelection: Sendable, Equatable {
    /// What is listed: a tag's values, or song URIs (`list file`).
    package enum Subject: Sendable, Equatable {
        /// The distinct values of a tag.
        case tag(TagType)
        /// Song URIs (`list file`, `list filename`).
        case uri
    }

    /// What is listed.
    package var subject: Subject
    /// Which songs count; `nil` for all.
    package var filter: FilterExpression?
    /// The `group` tags in the order given; the last one is the outermost level.
    package var groups: [TagType]
    /// `window START:END`, on the outermost level.
    package var window: RangeArgument?

    /// Creates a list selection.
    package init(subject: Subject, filter: FilterExpression?, groups: [TagType] = [], window: RangeArgument? = nil) {
        self.subject = subject
        self.filter = filter
        self.groups = groups
        self.window = window
    }
}

/// What `count` and `searchcount` ask for: `FILTER [group TAG]`.
package struct CountSelection: Sendable, Equatable {
    /// Which songs count; `nil` for all (allowed only with a group).
    package var filter: FilterExpression?
    /// `group TAG`.
    package var group: TagType?

    /// Creates a count selection.
    package init(filter: FilterExpression?, group: TagType? = nil) {
        self.filter = filter
        self.group = group
    }
}
