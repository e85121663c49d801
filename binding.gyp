{
  "targets": [
    {
      "target_name": "fixpoint_spawn",
      "sources": ["native/spawn.cc"],
      "cflags_cc": ["-std=c++17", "-O2"],
      "conditions": [["OS!='linux'", {"type": "none", "sources": []}]]
    },
    {
      "target_name": "fixpoint_copy_json",
      "sources": ["native/copy-json.cc"],
      "cflags_cc": ["-std=c++17", "-O2"],
      "xcode_settings": {"CLANG_CXX_LANGUAGE_STANDARD": "c++17", "GCC_OPTIMIZATION_LEVEL": "2"}
    },
    {
      "target_name": "fixpoint_copy_lines",
      "sources": ["native/copy-lines.cc"],
      "cflags_cc": ["-std=c++17", "-O2"],
      "xcode_settings": {"CLANG_CXX_LANGUAGE_STANDARD": "c++17", "GCC_OPTIMIZATION_LEVEL": "2"}
    }
  ]
}
