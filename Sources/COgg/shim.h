#pragma once
/* libogg: the pages of the httpd output's Ogg Vorbis and Opus streams, as MPD makes them. */
#include <ogg/ogg.h>
