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
launch k1 grid 3 2 1 block 256 1 1 cluster 2 1 1 shared 69888 args 0 1 2
launch k2 grid 1 1 1 block 32 1 1 cluster 1 1 1 shared 0 args 3 4 0
end
)";

TEST(LaunchPlanReader, ParsesValuesAndLaunches) {
  LaunchPlan plan;
  ASSERT_EQ(parseLaunchPlan(kPlan, plan), "");
  EXPECT_EQ(plan.function, "gemm");
  ASSERT_EQ(plan.values.size(), 5u);
  EXPECT_TRUE(plan.values[0].isBuffer);
  EXPECT_EQ(plan.values[0].type, "f4E2M1FN");
  EXPECT_EQ(plan.values[0].shape, (std::vector<int64_t>{3, 5}));
  // 15 E2M1 codes: 8 bytes, two per byte, the last half empty.
  EXPECT_EQ(plan.values[0].byteSize(), 8);
  EXPECT_EQ(plan.values[1].byteSize(), 3);
  EXPECT_FALSE(plan.values[2].isBuffer);
  EXPECT_EQ(plan.values[2].source, "arg0.amax");
  EXPECT_TRUE(plan.values[3].shape.empty());
  EXPECT_EQ(plan.values[3].byteSize(), 2);
  EXPECT_EQ(plan.values[4].source, "const=0x10");
  ASSERT_EQ(plan.launches.size(), 2u);
  const PlanLaunch &l = plan.launches[0];
  EXPECT_EQ(l.kernel, "k1");
  EXPECT_EQ(l.grid[0], 3u);
  EXPECT_EQ(l.grid[1], 2u);
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
  EXPECT_TRUE(mentions(errorWith("grid 3 2 1", "grid 3 2 4294967296"),
                       "expected grid X Y Z"));
  EXPECT_TRUE(mentions(errorWith("end\n", "end\nfunction other\nend\n"),
                       "a plan of more than one function"));
  EXPECT_EQ(errorWith("end\n", ""),
            "launch plan: expected 'function <name>' ... 'end'");
  EXPECT_TRUE(mentions(errorWith("function gemm\n", ""), "expected 'function"));
  EXPECT_TRUE(mentions(errorWith("launch k2", "lunch k2"), "unknown line"));
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
  LaunchPlan plan;
  EXPECT_EQ(parseLaunchPlan("function f\nend\n", plan),
            "launch plan: function f launches nothing");
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
