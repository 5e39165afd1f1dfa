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
static const int TONEARM_AVERROR_EXIT = AVERROR_EXIT;
static const int TONEARM_AVERROR_EAGAIN = AVERROR(EAGAIN);
static const int TONEARM_AVERROR_INVALIDDATA = AVERROR_INVALIDDATA;
static const int64_t TONEARM_AV_NOPTS_VALUE = AV_NOPTS_VALUE;
static inline AVRational tonearm_av_time_base_q(void) { return AV_TIME_BASE_Q; }

/* Metadata reading (MediaLibrary/Tags). */
static const int TONEARM_AV_DISPOSITION_ATTACHED_PIC = AV_DISPOSITION_ATTACHED_PIC;

/* The sample formats the decoder for `id` declares, terminated by AV_SAMPLE_FMT_NONE, or NULL when
   there is no decoder or it does not say. Lets the scanner name a file's sample format without
   opening a decoder; kept in C because the field is deprecated in FFmpeg 7.1. */
static inline const enum AVSampleFormat *tonearm_decoder_sample_formats(enum AVCodecID id) {
    const AVCodec *codec = avcodec_find_decoder(id);
    if (codec == NULL) return NULL;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *formats = NULL;
    int count = 0;
    if (avcodec_get_supported_config(NULL, codec, AV_CODEC_CONFIG_SAMPLE_FORMAT, 0, &formats, &count) < 0)
        return NULL;
    return (const enum AVSampleFormat *)formats;
#else
    return codec->sample_fmts;
#endif
}

/* Decoding (Playback/FFmpeg). */
#include <libavutil/replaygain.h>

static const int TONEARM_AVERROR_BUG = AVERROR_BUG;
static const int TONEARM_AVERROR_BUG2 = AVERROR_BUG2;
static const int TONEARM_AVERROR_EXTERNAL = AVERROR_EXTERNAL;
static const int TONEARM_AVERROR_ENOMEM = AVERROR(ENOMEM);
static const int TONEARM_AVERROR_EINVAL = AVERROR(EINVAL);

/* The stream's ReplayGain side data (which FFmpeg's demuxers fill from REPLAYGAIN_* tags), or
   NULL. Stream side data moved to AVCodecParameters in FFmpeg 6.1 and the old accessor is
   deprecated there, so the version decides which field is read. */
static inline const AVReplayGain *tonearm_stream_replaygain(const AVStream *stream) {
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
    const AVPacketSideData *side = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data,
                                                           AV_PKT_DATA_REPLAYGAIN);
    if (side == NULL || side->size < sizeof(AVReplayGain)) return NULL;
    return (const AVReplayGain *)side->data;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_REPLAYGAIN, &size);
    if (data == NULL || size < sizeof(AVReplayGain)) return NULL;
    return (const AVReplayGain *)data;
#endif
}

/* Opening errors that mean "cannot read the file" rather than "cannot decode it". */
static const int TONEARM_AVERROR_ENOENT = AVERROR(ENOENT);
static const int TONEARM_AVERROR_EACCES = AVERROR(EACCES);
static const int TONEARM_AVERROR_EISDIR = AVERROR(EISDIR);
