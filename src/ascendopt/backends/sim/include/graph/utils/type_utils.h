// AscendOptimizer simulator (host side): ge::TypeUtils. The string conversions are defined in
// runtime/host_rt.cpp (op code then instantiates no std::string/std::vector code).
#pragma once
#include <string>

#include "graph/ascend_string.h"
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
    static std::string DataTypeToSerialString(DataType dt);
    static DataType SerialStringToDataType(const std::string& s);
    static std::string FormatToSerialString(Format f);
    static Format SerialStringToFormat(const std::string& s);
    static Format DataFormatToFormat(const std::string& s) { return SerialStringToFormat(s); }
    // The serial name ("DT_FLOAT16") as an AscendString (InferDataType/InferShape code logs with it).
    static AscendString DataTypeToAscendString(DataType dt) { return AscendString(DataTypeToSerialString(dt).c_str()); }
    static AscendString FormatToAscendString(Format f) { return AscendString(FormatToSerialString(f).c_str()); }
};

}  // namespace ge
