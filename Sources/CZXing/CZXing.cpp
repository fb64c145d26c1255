// A plain C face for zxing-cpp 1.4 (Debian 12's libzxing-dev): types translated, nothing decided.
#define ZX_USE_UTF8 // Result::text() as UTF-8 std::string
#include "CZXing.h"

#include <ZXing/ReadBarcode.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

static_assert(static_cast<int>(ZXing::ContentType::Binary) == CZX_BINARY && static_cast<int>(ZXing::ContentType::UnknownECI) == CZX_UNKNOWN_ECI,
              "CZX_ content types follow ZXing::ContentType");

struct czx_results {
    std::vector<czx_symbol> symbols;
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<std::string> texts;
};

extern "C" czx_results *czx_read(const uint8_t *luma, int width, int height, int stride, const czx_options *options,
                                 char *error, size_t error_capacity) {
    try {
        ZXing::DecodeHints hints;
        hints.setFormats(ZXing::BarcodeFormats(static_cast<ZXing::BarcodeFormat>(options->formats)));
        hints.setTryHarder(options->try_harder != 0);
        hints.setTryRotate(options->try_rotate != 0);
        hints.setTryDownscale(options->try_downscale != 0);
        hints.setBinarizer(static_cast<ZXing::Binarizer>(options->binarizer));
        if (options->max_symbols > 0) hints.setMaxNumberOfSymbols(static_cast<uint8_t>(options->max_symbols));
        ZXing::ImageView image(luma, width, height, ZXing::ImageFormat::Lum, stride);
        auto found = ZXing::ReadBarcodes(image, hints);
        auto *results = new czx_results;
        for (const auto &result : found) {
            if (!result.isValid()) continue;
            const auto &data = result.bytes();
            results->bytes.emplace_back(data.begin(), data.end());
            results->texts.push_back(result.text());
            czx_symbol symbol{};
            symbol.format = static_cast<int>(result.format());
            symbol.length = results->bytes.back().size();
            symbol.text_length = results->texts.back().size();
            symbol.content_type = static_cast<int>(result.contentType());
            symbol.has_eci = result.hasECI();
            std::snprintf(symbol.symbology_identifier, sizeof symbol.symbology_identifier, "%s", result.symbologyIdentifier().c_str());
            const auto &position = result.position();
            for (int corner = 0; corner < 4; corner++) {
                symbol.x[corner] = position[corner].x;
                symbol.y[corner] = position[corner].y;
            }
            symbol.orientation = result.orientation();
            results->symbols.push_back(symbol);
        }
        for (size_t i = 0; i < results->symbols.size(); i++) {
            results->symbols[i].bytes = results->bytes[i].data();
            results->symbols[i].text = results->texts[i].data();
        }
        return results;
    } catch (const std::exception &exception) {
        if (error && error_capacity) std::snprintf(error, error_capacity, "%s", exception.what());
    } catch (...) {
        if (error && error_capacity) std::snprintf(error, error_capacity, "unknown exception");
    }
    return nullptr;
}

extern "C" int czx_count(const czx_results *results) { return static_cast<int>(results->symbols.size()); }

extern "C" const czx_symbol *czx_symbol_at(const czx_results *results, int index) { return &results->symbols[index]; }

extern "C" void czx_free(czx_results *results) { delete results; }
