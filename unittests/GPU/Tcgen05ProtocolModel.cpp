//===- Tcgen05ProtocolModel.cpp - tcgen05 kernel protocol model -----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// simulate() of Tcgen05ProtocolModel.h: runs the cluster model of
// Tcgen05ClusterModel.h on every cluster of a configuration and checks that
// each tile is stored exactly once by each CTA of its cluster.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05ProtocolModel.h"
#include "Tcgen05ClusterModel.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Pipeline.h"

#include <string>
#include <vector>

using namespace nvfp4::gpu::tcgen05::model::detail;

/// Runs every cluster of `c`; returns the first violation, or "" after
/// checking that each CTA of the cluster the schedule gives a tile stored
/// its rows of the tile exactly once.
std::string nvfp4::gpu::tcgen05::model::simulate(const Config &c,
                                                 uint64_t seed) {
  const int64_t ctasPerCluster = c.ctaPair ? kPairCtas : 1;
  std::vector<int> storedCount(c.numTiles * ctasPerCluster, 0);
  for (int64_t cluster = 0; cluster < c.clusters; ++cluster) {
    ClusterModel model(c, cluster, seed * 1000003 + cluster);
    if (std::string error = model.run(); !error.empty())
      return "cluster " + std::to_string(cluster) + ": " + error;
    for (int64_t rank = 0; rank < ctasPerCluster; ++rank)
      for (int64_t tile : model.storedTiles(rank)) {
        if (tile < 0 || tile >= c.numTiles || tile % c.clusters != cluster)
          return "tile " + std::to_string(tile) + " stored by cluster " +
                 std::to_string(cluster);
        ++storedCount[tile * ctasPerCluster + rank];
      }
  }
  for (int64_t tile = 0; tile < c.numTiles; ++tile)
    for (int64_t rank = 0; rank < ctasPerCluster; ++rank)
      if (int count = storedCount[tile * ctasPerCluster + rank]; count != 1)
        return "cta " + std::to_string(rank) + "'s rows of tile " +
               std::to_string(tile) + " stored " + std::to_string(count) +
               " times";
  return "";
}
