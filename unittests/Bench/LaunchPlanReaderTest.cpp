//===- LaunchPlanReaderTest.cpp - The GPU benchmarks' plan reader ---------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// bench/gpu/LaunchPlanReader.h: what a plan parses to, what it refuses, the
// parameter sizes of PTX entries (the byval tensor maps of the tcgen05
// kernels included), and the check of a plan against them.
//
//===----------------------------------------------------------------------===//

#include "LaunchPlanReader.h"

#include <gtest/gtest.h>

using namespace nvfp4::bench;

namespace {

const char *const kPlan = R"(# nvfp4 launch plan 1
function gemm
buffer 0 f4E2M1FN 3x5 arg0.data
buffer 1 f8E4M3FN 3x1 arg0.scales
scalar 2 f32 arg0.amax
buffer 3 bf16 0d temp
scalar 4 index const=0x10
launch k1 grid 4 2 1 block 256 1 1 cluster 2 1 1 shared 69888 args 0 1 2
launch k2 grid 1 1 1 block 32 1 1 cluster 1 1 1 shared 0 args 3 4 0
end
)";

TEST(LaunchPlanReader, ParsesValuesAndLaunches) {
  LaunchPlan plan;
  ASSERT_EQ(parseLaunchPlan(kPlan, plan), "");
  EXPECT_EQ(plan.function, "gemm");
  ASSERT_EQ(plan.values.size(), 5u);
  EXPECT_TRUE(plan.values[0].isBuffer());
  EXPECT_EQ(plan.values[0].type, "f4E2M1FN");
  EXPECT_EQ(plan.values[0].shape, (std::vector<int64_t>{3, 5}));
  // 15 E2M1 codes: 8 bytes, two per byte, the last half empty.
  EXPECT_EQ(plan.values[0].byteSize(), 8);
  EXPECT_EQ(plan.values[1].byteSize(), 3);
  EXPECT_FALSE(plan.values[2].isBuffer());
  EXPECT_EQ(plan.values[2].source, "arg0.amax");
  EXPECT_TRUE(plan.values[3].shape.empty());
  EXPECT_EQ(plan.values[3].byteSize(), 2);
  EXPECT_EQ(plan.values[4].source, "const=0x10");
  ASSERT_EQ(plan.launches.size(), 2u);
  const PlanLaunch &l = plan.launches[0];
  EXPECT_EQ(l.kernel, "k1");
  EXPECT_EQ(l.grid[0], "4");
  EXPECT_EQ(l.grid[1], "2");
  unsigned grid[3];
  ASSERT_EQ(resolveGrid(l, 148, grid), "");
  EXPECT_EQ(grid[0], 4u);
  EXPECT_EQ(grid[1], 2u);
  EXPECT_EQ(grid[2], 1u);
  EXPECT_EQ(l.block[0], 256u);
  EXPECT_EQ(l.cluster[0], 2u);
  EXPECT_EQ(l.sharedBytes, 69888u);
  EXPECT_EQ(l.args, (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(plan.launches[1].args, (std::vector<unsigned>{3, 4, 0}));
  EXPECT_EQ(plan.find("arg0.scales"), 1);
  EXPECT_EQ(plan.find("result0"), -1);
  // Memref descriptors: 3 + 2 * rank words; scalars their width.
  EXPECT_EQ(
      launchParamSizes(plan, plan.launches[0]),
      (std::vector<int64_t>{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 4}));
  // A rank-0 memref (3 words), an index (8 bytes), a rank-2 memref (7).
  EXPECT_EQ(launchParamSizes(plan, plan.launches[1]),
            (std::vector<int64_t>{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8}));
}

/// The error of parsing `kPlan` with `from` replaced by `to`.
std::string errorWith(const std::string &from, const std::string &to) {
  std::string text = kPlan;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  LaunchPlan plan;
  return parseLaunchPlan(text, plan);
}

/// Whether `error` contains `text`.
::testing::AssertionResult mentions(const std::string &error,
                                    const char *text) {
  if (error.find(text) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "\"" << error << "\" does not mention \"" << text << "\"";
}

TEST(LaunchPlanReader, RefusesMalformedPlans) {
  EXPECT_EQ(errorWith("buffer 1 ", "buffer 2 "),
            "launch plan line 4: expected the next value number, 1 "
            "(\"buffer 2 f8E4M3FN 3x1 arg0.scales\")");
  EXPECT_TRUE(mentions(errorWith("f8E4M3FN", "f7"), "unknown type"));
  EXPECT_TRUE(mentions(errorWith("3x1", "3xq"), "bad shape"));
  EXPECT_TRUE(mentions(errorWith("args 0 1 2", "args 0 1 7"),
                       "argument 7 is not a value defined above"));
  EXPECT_TRUE(mentions(errorWith(" cluster 2 1 1", ""), "expected grid X Y Z"));
  EXPECT_TRUE(mentions(errorWith("end\n", "end\nfunction other\nend\n"),
                       "a plan of more than one function"));
  EXPECT_EQ(errorWith("end\n", ""),
            "launch plan: expected 'function <name>' ... 'end'");
  EXPECT_TRUE(mentions(errorWith("function gemm\n", ""), "expected 'function"));
  EXPECT_TRUE(mentions(errorWith("launch k2", "lunch k2"), "unknown line"));
  EXPECT_TRUE(mentions(errorWith("cluster 2 1 1", "cluster 2 0 1"),
                       "a block or cluster size of 0"));
  EXPECT_TRUE(mentions(errorWith("block 256 1 1", "block 0 1 1"),
                       "a block or cluster size of 0"));
  // One value per argument or result component (temporaries and constants
  // may repeat).
  EXPECT_TRUE(mentions(errorWith("arg0.scales", "arg0.data"),
                       "source arg0.data appears twice"));
  EXPECT_EQ(errorWith("scalar 4 index const=0x10", "scalar 4 index temp"), "");
  // Shapes whose bytes do not fit in int64_t.
  EXPECT_TRUE(mentions(
      errorWith("3x5 arg0.data", "999999999999x999999999999 arg0.data"),
      "a buffer too large"));
  EXPECT_TRUE(
      mentions(errorWith("3x1 arg0.scales", "576460752303423488x2 arg0.scales"),
               "a buffer too large"));
  // Only the scales of an argument or result are marked atoms, whole
  // 128x4 atoms of them, and nothing follows.
  EXPECT_EQ(errorWith("3x1 arg0.scales", "2x64x4 arg0.scales atoms"), "");
  EXPECT_TRUE(mentions(errorWith("3x1 arg0.scales", "3x1 arg0.scales atoms"),
                       "scales in atoms need rank 2 or more, rows a multiple "
                       "of 128 and columns of 4"));
  EXPECT_TRUE(mentions(errorWith("3x1 arg0.scales", "128x2 arg0.scales atoms"),
                       "scales in atoms need"));
  EXPECT_TRUE(mentions(errorWith("3x1 arg0.scales", "512 arg0.scales atoms"),
                       "scales in atoms need"));
  EXPECT_TRUE(
      mentions(errorWith("3x1 arg0.scales", "128x4 arg0.scales atoms junk"),
               "unexpected 'junk'"));
  EXPECT_TRUE(mentions(errorWith("4 index const=0x10", "4 index const=0x10 1"),
                       "unexpected '1'"));
  EXPECT_TRUE(mentions(errorWith("3x5 arg0.data", "3x5 arg0.data atoms"),
                       "unexpected 'atoms'"));
  EXPECT_TRUE(mentions(errorWith("3x1 arg0.scales", "3x1 arg0.scales swizzled"),
                       "unexpected 'swizzled'"));
  EXPECT_TRUE(mentions(errorWith("f32 arg0.amax", "f32 arg0.amax atoms"),
                       "unexpected 'atoms'"));
  // Grid sizes that are not expressions (their values are the device's
  // business: resolveGrid).
  EXPECT_TRUE(mentions(errorWith("grid 4 2 1", "grid min(sm_count,8 2 1"),
                       "expected grid X Y Z"));
  EXPECT_TRUE(mentions(errorWith("grid 4 2 1", "grid mod(sm_count,2) 2 1"),
                       "expected grid X Y Z"));
  EXPECT_TRUE(mentions(errorWith("grid 4 2 1", "grid min(sm_count,8)) 2 1"),
                       "expected grid X Y Z"));
  EXPECT_EQ(errorWith("grid 4 2 1", "grid div(sm_count,200) 2 1"), "");
  LaunchPlan plan;
  EXPECT_EQ(parseLaunchPlan("function f\nend\n", plan),
            "launch plan: function f launches nothing");
}

TEST(LaunchPlanReader, EvaluatesGridSizes) {
  auto value = [](const char *expression, int64_t smCount) -> int64_t {
    unsigned size = 0;
    std::string error = evaluateGridSize(expression, smCount, size);
    EXPECT_EQ(error, "") << expression;
    return error.empty() ? int64_t(size) : -1;
  };
  EXPECT_EQ(value("7", 148), 7);
  EXPECT_EQ(value("sm_count", 148), 148);
  // The tcgen05 persistent grids: one CTA per SM, at most one per tile; a
  // CTA pair per two SMs, at least one pair.
  EXPECT_EQ(value("min(sm_count,8)", 148), 8);
  EXPECT_EQ(value("min(sm_count,1024)", 148), 148);
  const char *pair = "mul(min(max(div(sm_count,2),1),256),2)";
  EXPECT_EQ(value(pair, 148), 148);
  EXPECT_EQ(value(pair, 1), 2);
  EXPECT_EQ(value(pair, 1000), 512);
  EXPECT_EQ(value("ceildiv(sm_count,3)", 7), 3);
  EXPECT_EQ(value("add(sub(sm_count,2),1)", 5), 4);
  auto error = [](const char *expression, int64_t smCount) {
    unsigned size = 0;
    return evaluateGridSize(expression, smCount, size);
  };
  EXPECT_TRUE(mentions(error("div(sm_count,0)", 4), "division by zero"));
  EXPECT_TRUE(mentions(error("sub(1,2)", 4), "value -1 outside [0, 2^31)"));
  EXPECT_TRUE(mentions(error("mul(65536,65536)", 4), "outside [0, 2^31)"));
  EXPECT_TRUE(mentions(error("4294967296", 4), "outside [0, 2^31)"));
  EXPECT_TRUE(mentions(error("div(sm_count,8)", 4), "a grid size of 0"));
  EXPECT_TRUE(mentions(error("pow(sm_count,2)", 4), "unknown operation 'pow'"));
  EXPECT_TRUE(mentions(error("min(sm_count,8))", 4), "unexpected ')'"));
  EXPECT_TRUE(mentions(error("min(sm_count 8)", 4), "expected ','"));
  EXPECT_TRUE(mentions(error("", 4), "expected a number"));
  EXPECT_TRUE(mentions(error("min", 4), "expected '(' after min"));
  EXPECT_TRUE(
      mentions(error("min(1,2", 4), "expected ')' after the operands of min"));
  EXPECT_TRUE(mentions(error("1234567890123456789012", 4), "bad number"));
  std::string deep = "1";
  for (int i = 0; i < 70; ++i)
    deep = "add(" + deep + ",0)";
  EXPECT_TRUE(mentions(error(deep.c_str(), 4), "nested too deeply"));
  EXPECT_EQ(error("min(sm_count,8)x", 4),
            "grid size 'min(sm_count,8)x' with 4 multiprocessors: "
            "unexpected 'x'");
  PlanLaunch launch;
  launch.kernel = "k";
  launch.grid[1] = "div(sm_count,200)";
  unsigned grid[3];
  EXPECT_EQ(resolveGrid(launch, 148, grid),
            "kernel k: grid size 'div(sm_count,200)' with 148 "
            "multiprocessors: a grid size of 0");
  // A cluster launch needs whole clusters.
  launch.grid[1] = "1";
  launch.grid[0] = "min(sm_count,8)";
  launch.cluster[0] = 2;
  EXPECT_EQ(resolveGrid(launch, 4, grid), "");
  EXPECT_EQ(grid[0], 4u);
  EXPECT_EQ(resolveGrid(launch, 3, grid),
            "kernel k: grid size 'min(sm_count,8)' with 3 multiprocessors "
            "is 3, not a multiple of the cluster's 2");
}

/// A plan with a tensor map over a 256 x 64-byte buffer, passed after it.
const char *const kMapPlan = R"(# nvfp4 launch plan 2
function f
buffer 0 f4E2M1FN 256x128 arg0.data
tensormap 1 of 0 bytes 64x256 stride 64 box 64x128 swizzle 3
buffer 2 f8E4M3FN 256x8 arg0.scales atoms
launch k grid min(sm_count,2) 1 1 block 192 1 1 cluster 1 1 1 shared 0 args 0 1 2
end
)";

/// The error of parsing `kMapPlan` with `from` replaced by `to`, then of
/// checking it against a PTX entry that takes a memref, a map, a memref.
std::string mapErrorWith(const std::string &from, const std::string &to) {
  std::string text = kMapPlan;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  LaunchPlan plan;
  if (std::string error = parseLaunchPlan(text, plan); !error.empty())
    return error;
  std::string ptx = ".entry k(\n";
  for (int i = 0; i < 7; ++i)
    ptx += ".param .u64 a" + std::to_string(i) + ",\n";
  ptx += ".param .align 64 .b8 map[128],\n";
  for (int i = 0; i < 7; ++i)
    ptx += ".param .u64 b" + std::to_string(i) + (i < 6 ? ",\n" : "\n)");
  return checkPlanAgainstPtx(plan, ptx);
}

TEST(LaunchPlanReader, ReadsAndChecksTensorMaps) {
  LaunchPlan plan;
  ASSERT_EQ(parseLaunchPlan(kMapPlan, plan), "");
  ASSERT_EQ(plan.values.size(), 3u);
  const PlanValue &map = plan.values[1];
  EXPECT_TRUE(map.isTensorMap());
  EXPECT_EQ(map.tensorMap.of, 0u);
  EXPECT_EQ(map.tensorMap.innerBytes, 64u);
  EXPECT_EQ(map.tensorMap.outerRows, 256u);
  EXPECT_EQ(map.tensorMap.rowStrideBytes, 64u);
  EXPECT_EQ(map.tensorMap.boxInnerBytes, 64u);
  EXPECT_EQ(map.tensorMap.boxOuterRows, 128u);
  EXPECT_EQ(map.tensorMap.swizzle, 3);
  EXPECT_FALSE(plan.values[0].scaleAtoms);
  EXPECT_TRUE(plan.values[2].scaleAtoms);
  // A map is one 128-byte parameter.
  EXPECT_EQ(
      launchParamSizes(plan, plan.launches[0]),
      (std::vector<int64_t>{8, 8, 8, 8, 8, 8, 8, 128, 8, 8, 8, 8, 8, 8, 8}));
  EXPECT_EQ(mapErrorWith("", ""), "");
  // Malformed maps.
  EXPECT_TRUE(mentions(mapErrorWith("of 0", "of 2"),
                       "a tensor map of 2, which is not a buffer defined"));
  EXPECT_TRUE(mentions(mapErrorWith("of 0", "of 1"),
                       "a tensor map of 1, which is not a buffer defined"));
  EXPECT_TRUE(mentions(mapErrorWith(" swizzle 3", ""), "expected 'tensormap"));
  EXPECT_TRUE(mentions(mapErrorWith("swizzle 3", "swizzle 3 x"),
                       "expected 'tensormap"));
  EXPECT_TRUE(mentions(mapErrorWith("swizzle 3", "swizzle 4"),
                       "a box or swizzle out of range"));
  EXPECT_TRUE(
      mentions(mapErrorWith("box 64x128", "box 64"), "expected 'tensormap"));
  EXPECT_TRUE(mentions(mapErrorWith("box 64x128", "box 4294967296x128"),
                       "a box or swizzle out of range"));
  // Maps cuTensorMapEncodeTiled would refuse, or that reach past the
  // buffer (256 rows of 64 bytes are all of it).
  EXPECT_EQ(mapErrorWith("stride 64", "stride 72"),
            "the tensor map of arg0.data: row stride not a multiple of 16 "
            "bytes");
  EXPECT_TRUE(mentions(mapErrorWith("box 64x128", "box 256x128"),
                       "the tensor map of arg0.data: "));
  EXPECT_EQ(mapErrorWith("bytes 64x256", "bytes 64x257"),
            "the tensor map of arg0.data: covers 257 rows of 64 bytes, 64 "
            "apart, beyond the 16384 bytes of the buffer");
  EXPECT_TRUE(mentions(mapErrorWith("stride 64", "stride 80"),
                       "beyond the 16384 bytes"));
  // Grids are checked for devices of 1 to 1024 SMs.
  EXPECT_EQ(mapErrorWith("min(sm_count,2)", "div(sm_count,2)"),
            "kernel k: grid size 'div(sm_count,2)' with 1 multiprocessors: "
            "a grid size of 0");
  EXPECT_EQ(mapErrorWith("min(sm_count,2)", "sub(1024,sm_count)"),
            "kernel k: grid size 'sub(1024,sm_count)' with 1024 "
            "multiprocessors: a grid size of 0");
  EXPECT_EQ(mapErrorWith("min(sm_count,2)", "sub(1025,sm_count)"), "");
  // The plan's own checks hold without PTX too (a cubin).
  {
    std::string text = kMapPlan;
    text.replace(text.find("bytes 64x256"), 12, "bytes 64x257");
    LaunchPlan plan;
    ASSERT_EQ(parseLaunchPlan(text, plan), "");
    EXPECT_TRUE(mentions(checkPlan(plan), "beyond the 16384 bytes"));
    text = kMapPlan;
    text.replace(text.find("cluster 1 1 1"), 13, "cluster 2 1 1");
    plan = LaunchPlan();
    ASSERT_EQ(parseLaunchPlan(text, plan), "");
    EXPECT_EQ(checkPlan(plan),
              "kernel k: grid size 'min(sm_count,2)' with 1 "
              "multiprocessors is 1, not a multiple of the cluster's 2");
  }
  // A map passed where the PTX takes a memref word.
  EXPECT_TRUE(mentions(mapErrorWith("args 0 1 2", "args 0 2 2"),
                       "do not match the PTX entry's parameters"));
}

// The parameter lists NVPTX writes: pointers with `.ptr .align`, plain
// scalars, and the tcgen05 kernels' byval tensor maps.
const char *const kPtx = R"(
.visible .entry k1(
	.param .u64 .ptr .align 1 k1_param_0,
	.param .f32 k1_param_1,
	.param .align 64 .b8 k1_param_2[128],
	.param .b16 k1_param_3
)
.maxntid 256, 1, 1
{
	ret;
}
.visible .entry k10(
	.param .u32 k10_param_0
)
{
	ret;
}
)";

TEST(LaunchPlanReader, ReadsPtxEntryParameters) {
  std::vector<int64_t> sizes;
  ASSERT_EQ(ptxEntryParamSizes(kPtx, "k1", sizes), "");
  EXPECT_EQ(sizes, (std::vector<int64_t>{8, 4, 128, 2}));
  // `k1` is not mistaken for `k10`, nor the other way round.
  ASSERT_EQ(ptxEntryParamSizes(kPtx, "k10", sizes), "");
  EXPECT_EQ(sizes, (std::vector<int64_t>{4}));
  EXPECT_EQ(ptxEntryParamSizes(kPtx, "k", sizes),
            "kernel k is not an entry of the PTX");
  EXPECT_TRUE(mentions(
      ptxEntryParamSizes(".entry bad(\n .param .q99 x\n)", "bad", sizes),
      "unrecognized parameter"));
}

TEST(LaunchPlanReader, ChecksThePtxTargetAgainstTheDevice) {
  const std::string sm100a =
      ".version 8.8\n.target sm_100a\n.address_size 64\n";
  EXPECT_EQ(checkPtxRunsOn(sm100a, 10, 0), "");
  // Architecture-specific: neither an earlier nor a later device.
  EXPECT_EQ(checkPtxRunsOn(sm100a, 9, 0),
            "the kernels are for sm_100a, whose architecture-specific "
            "instructions run only on compute capability 10.0; device 0 has "
            "compute capability 9.0");
  EXPECT_TRUE(mentions(checkPtxRunsOn(sm100a, 10, 3), "capability 10.3"));
  EXPECT_EQ(checkPtxRunsOn(".target sm_90a\n", 9, 0), "");
  EXPECT_EQ(checkPtxRunsOn(".target sm_121a\n", 12, 1), "");
  EXPECT_TRUE(mentions(checkPtxRunsOn(".target sm_120a\n", 12, 1),
                       "only on compute "
                       "capability 12.0"));
  // A plain target runs on its architecture and later ones.
  EXPECT_EQ(checkPtxRunsOn(".target sm_80, texmode_independent\n", 9, 0), "");
  EXPECT_EQ(checkPtxRunsOn(".target sm_90\n", 8, 9),
            "the kernels are for sm_90; device 0 has compute capability 8.9");
  EXPECT_EQ(checkPtxRunsOn(".version 8.8\n", 9, 0), "the PTX has no .target");
  EXPECT_TRUE(mentions(checkPtxRunsOn(".target compute_90\n", 9, 0),
                       "is not sm_<XY>[a|f]"));
  // Family-specific: the later members of the family.
  EXPECT_EQ(checkPtxRunsOn(".target sm_100f\n", 10, 3), "");
  EXPECT_EQ(checkPtxRunsOn(".target sm_103f\n", 10, 0),
            "the kernels are for sm_103f, whose family-specific instructions "
            "run only on compute capability 10.x from 10.3; device 0 has "
            "compute capability 10.0");
  EXPECT_TRUE(
      mentions(checkPtxRunsOn(".target sm_100f\n", 12, 0), "10.x from 10.0"));
  EXPECT_TRUE(mentions(checkPtxRunsOn(".target sm_100b\n", 10, 0),
                       "is not sm_<XY>[a|f]"));
  EXPECT_TRUE(mentions(checkPtxRunsOn(".target sm_1000\n", 10, 0),
                       "is not sm_<XY>[a|f]"));
  EXPECT_TRUE(mentions(checkPtxRunsOn(".target sm_90ab\n", 9, 0),
                       "is not sm_<XY>[a|f]"));
  EXPECT_TRUE(
      mentions(checkPtxRunsOn(".target sm_9\n", 9, 0), "is not sm_<XY>[a|f]"));
}

TEST(LaunchPlanReader, ChecksPlansAgainstPtx) {
  const std::string plan = "function f\n"
                           "buffer 0 f32 4 arg0\n"
                           "scalar 1 f32 arg1\n"
                           "launch k grid 1 1 1 block 1 1 1 cluster 1 1 1 "
                           "shared 0 args 0 1\n"
                           "end\n";
  LaunchPlan parsed;
  ASSERT_EQ(parseLaunchPlan(plan, parsed), "");
  const std::string match = ".entry k(\n.param .u64 a,\n.param .u64 b,\n"
                            ".param .u64 c,\n.param .u64 d,\n.param .u64 e,\n"
                            ".param .f32 f\n)";
  EXPECT_EQ(checkPlanAgainstPtx(parsed, match), "");
  // A rank-1 memref is five words; the PTX here takes four.
  const std::string fewer = ".entry k(\n.param .u64 a,\n.param .u64 b,\n"
                            ".param .u64 c,\n.param .u64 d,\n.param .f32 f\n)";
  EXPECT_EQ(checkPlanAgainstPtx(parsed, fewer),
            "kernel k: the plan's arguments do not match the PTX entry's "
            "parameters; bytes per parameter: 8 8 8 8 4 (PTX) vs 8 8 8 8 8 4 "
            "(plan)");
}

} // namespace
