// AscendOptimizer simulator (host side): ge::TypeUtils.
#pragma once
#include <string>

#include "graph/types.h"

namespace ge {

class TypeUtils {
public:
    // Bytes per element; false for unknown and sub-byte types (length stays 0).
    static bool GetDataTypeLength(DataType dt, uint32_t& length) {
        int s = GetSizeByDataType(dt);
        if (s <= 0 || s >= kDataTypeSizeBitOffset) {
            length = 0;
            return false;
        }
        length = static_cast<uint32_t>(s);
        return true;
    }
    static std::string DataTypeToSerialString(DataType dt) {
        for (const auto& e : DtNames()) {
            if (e.dt == dt) return e.name;
        }
        return "UNDEFINED";
    }
    static DataType SerialStringToDataType(const std::string& s) {
        for (const auto& e : DtNames()) {
            if (s == e.name) return e.dt;
        }
        return DT_UNDEFINED;
    }
    static std::string FormatToSerialString(Format f) {
        for (const auto& e : FmtNames()) {
            if (e.f == f) return e.name;
        }
        return "RESERVED";
    }
    static Format SerialStringToFormat(const std::string& s) {
        for (const auto& e : FmtNames()) {
            if (s == e.name) return e.f;
        }
        return FORMAT_RESERVED;
    }
    static Format DataFormatToFormat(const std::string& s) { return SerialStringToFormat(s); }

private:
    struct DtName {
        DataType dt;
        const char* name;
    };
    struct FmtName {
        Format f;
        const char* name;
    };
    static const std::vector<DtName>& DtNames() {
        static const std::vector<DtName> v = {
            {DT_FLOAT, "DT_FLOAT"},     {DT_FLOAT16, "DT_FLOAT16"},   {DT_INT8, "DT_INT8"},
            {DT_INT32, "DT_INT32"},     {DT_UINT8, "DT_UINT8"},       {DT_INT16, "DT_INT16"},
            {DT_UINT16, "DT_UINT16"},   {DT_UINT32, "DT_UINT32"},     {DT_INT64, "DT_INT64"},
            {DT_UINT64, "DT_UINT64"},   {DT_DOUBLE, "DT_DOUBLE"},     {DT_BOOL, "DT_BOOL"},
            {DT_STRING, "DT_STRING"},   {DT_COMPLEX64, "DT_COMPLEX64"}, {DT_COMPLEX128, "DT_COMPLEX128"},
            {DT_BF16, "DT_BF16"},       {DT_INT4, "DT_INT4"},         {DT_COMPLEX32, "DT_COMPLEX32"},
            {DT_HIFLOAT8, "DT_HIFLOAT8"}, {DT_FLOAT8_E5M2, "DT_FLOAT8_E5M2"},
            {DT_FLOAT8_E4M3FN, "DT_FLOAT8_E4M3FN"}, {DT_UNDEFINED, "DT_UNDEFINED"},
        };
        return v;
    }
    static const std::vector<FmtName>& FmtNames() {
        static const std::vector<FmtName> v = {
            {FORMAT_NCHW, "NCHW"},           {FORMAT_NHWC, "NHWC"},         {FORMAT_ND, "ND"},
            {FORMAT_NC1HWC0, "NC1HWC0"},     {FORMAT_FRACTAL_Z, "FRACTAL_Z"}, {FORMAT_HWCN, "HWCN"},
            {FORMAT_NDHWC, "NDHWC"},         {FORMAT_FRACTAL_NZ, "FRACTAL_NZ"}, {FORMAT_NCDHW, "NCDHW"},
            {FORMAT_NDC1HWC0, "NDC1HWC0"},   {FORMAT_FRACTAL_Z_3D, "FRACTAL_Z_3D"}, {FORMAT_NC, "NC"},
            {FORMAT_NCL, "NCL"},
        };
        return v;
    }
};

}  // namespace ge
