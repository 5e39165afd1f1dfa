/* libxml2's pull parser, for reading XSPF playlists (PlaylistFormats/XSPFReader.swift).
 *
 * Debian builds libxml2 with ICU, so its encoding header pulls in ICU's headers, whose
 * declarations clash with the ICU that Foundation carries. Nothing here uses libxml2's ICU
 * converters (the reader's API is opaque pointers and strings), so they are left out. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
