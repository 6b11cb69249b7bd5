// nvfp4-gpu-stage-launch-operands: launches whose operands cannot be staged.
//
// RUN: nvfp4-opt %s --split-input-file --nvfp4-gpu-stage-launch-operands \
// RUN:   --verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%in: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func @asynchronous(%x: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    // expected-error @below {{is asynchronous; operands are staged before gpu-async-region}}
    %u = gpu.launch_func async [%t] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>)
    gpu.wait [%u]
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%in: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func @access_size(%x: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{nvfp4.operand_access does not have one entry per operand}}
    gpu.launch_func @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 1>}
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%in: memref<16xi8>) kernel {
      gpu.return
    }
  }
  func.func @shifted_view(%x: memref<32xi8>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    // expected-error @below {{of a kernel operand must have no byte shift to be staged}}
    %v = memref.view %x[%c16][] : memref<32xi8> to memref<16xi8>
    gpu.launch_func @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : memref<16xi8>) {nvfp4.operand_access = array<i32: 1>}
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%in: memref<4x8xf32, strided<[16, 1]>>) kernel {
      gpu.return
    }
  }
  func.func @strided(%x: memref<4x16xf32>) {
    %c1 = arith.constant 1 : index
    %s = memref.subview %x[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
    // expected-error @below {{kernel operand #0 does not have an identity layout; it cannot be copied to the device as one block}}
    gpu.launch_func @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%s : memref<4x8xf32, strided<[16, 1]>>) {nvfp4.operand_access = array<i32: 1>}
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @unranked(%in: memref<*xf32>) kernel {
      gpu.return
    }
  }
  func.func @unranked(%x: memref<*xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{kernel operand #0 is an unranked memref; only ranked memrefs are staged}}
    gpu.launch_func @k::@unranked blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<*xf32>)
    return
  }
}
