#pragma once
#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

/* Function-like macros (AVERROR, AV_NOPTS_VALUE, AV_TIME_BASE_Q …) are not imported by Swift. */
static inline int tonearm_averror(int posix_errno) { return AVERROR(posix_errno); }
static const int TONEARM_AVERROR_EOF = AVERROR_EOF;
static const int TONEARM_AVERROR_EAGAIN = AVERROR(EAGAIN);
static const int TONEARM_AVERROR_INVALIDDATA = AVERROR_INVALIDDATA;
static const int64_t TONEARM_AV_NOPTS_VALUE = AV_NOPTS_VALUE;
static inline AVRational tonearm_av_time_base_q(void) { return AV_TIME_BASE_Q; }
