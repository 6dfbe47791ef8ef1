
// ---- host wrappers (SG_HEADER declares them) ----
// Host code for nvcc; NVRTC compiles the kernels above without it.
#ifndef __CUDACC_RTC__
SG_BEGIN(scan)
#define SG_TYPES_GUARD  // the preamble above defines the types
SG_END(scan)
// ---- SG_HEADER:
SG_HEADER_TEXT
// ---- end of SG_HEADER

SG_BEGIN(scan)

// ---- host wrappers of scan 'SG_P' ----
SG_BEGIN(shaped)
SG_SHAPE_CALL
size_t SG_WORKSPACE_BYTES(SG_SHAPE_PARAMS) {
  SG_NAME(shape_call) call;
  return SG_SHAPE_CHECK ? static_cast<size_t>(call.workspace_bytes) : 0u;
}

cudaError_t SG_FUNCTION(SG_PARAMS) {
  SG_NAME(shape_call) call;
  if (!SG_SHAPE_CHECK) return cudaErrorInvalidValue;
  if (call.in_span > 0 && (SG_NULL_DATA)) return cudaErrorInvalidValue;
SG_BEGIN(aggregate)
  if (call.aggregates > 0 && aggregates == nullptr) return cudaErrorInvalidValue;
SG_END(aggregate)
  if (workspace == nullptr || workspace_bytes < call.workspace_bytes || reinterpret_cast<uintptr_t>(workspace) % 16u != 0u)
    return cudaErrorInvalidValue;
  if (call.blocks > 1) {  // the ticket and the statuses (one block reads neither)
    const cudaError_t zeroed = cudaMemsetAsync(workspace, 0, static_cast<size_t>(call.workspace_bytes), stream);
    if (zeroed != cudaSuccess) return zeroed;
  }
  const unsigned int blocks = static_cast<unsigned int>(call.blocks);
SG_BEGIN(strided)
  if (call.axis_kernel) {
    SG_KERNEL1<<<blocks, SG_BLOCK_THREADS, 0, stream>>>(SG_ARGS1);
    return cudaGetLastError();
  }
SG_END(strided)
  SG_KERNEL0<<<blocks, SG_BLOCK_THREADS, 0, stream>>>(SG_ARGS0);
  return cudaGetLastError();
}
SG_END(shaped)
SG_BEGIN(flat)
SG_BEGIN(device)
SG_WORKSPACE_FUNCTION

SG_END(device)
cudaError_t SG_FUNCTION(SG_PARAMS) {
  if (n < 0) return cudaErrorInvalidValue;
SG_BEGIN(returns_when_empty)
  if (n == 0) return cudaSuccess;
  if (SG_NULL_ANY) return cudaErrorInvalidValue;
SG_END(returns_when_empty)
SG_BEGIN(writes_when_empty)
  if (n > 0 && (SG_NULL_DATA)) return cudaErrorInvalidValue;
  if (SG_NULL_RESULTS) return cudaErrorInvalidValue;
SG_END(writes_when_empty)
SG_BEGIN(segmented)
  if (SG_SEGMENT_INVALID) return cudaErrorInvalidValue;
SG_END(segmented)
SG_BEGIN(device)
  const size_t needed = SG_WORKSPACE_BYTES(n);
  if (needed == 0 || workspace == nullptr || workspace_bytes < needed ||
      reinterpret_cast<uintptr_t>(workspace) % 16u != 0u)
    return cudaErrorInvalidValue;
SG_END(device)
  const uint64_t blocks = n == 0 ? 1u : (static_cast<uint64_t>(n) + SG_PER_BLOCK_LESS_ONE) / SG_PER_BLOCK;
SG_BEGIN(segments)
  if (blocks > 2147483647u) return cudaErrorInvalidValue;
SG_END(segments)
SG_BEGIN(lookback)
SG_BEGIN(dynamic_shared)
  // The scan kernel's exchange is dynamic shared memory past the 48 KiB a block may declare
  // (SG_SCAN_DYNAMIC_SHARED bytes), which the kernel must be allowed first.
  {
    const cudaError_t allowed =
        cudaFuncSetAttribute(SG_SCAN_KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, SG_SCAN_DYNAMIC_SHARED);
    if (allowed != cudaSuccess) return allowed;
  }
SG_END(dynamic_shared)
SG_BEGIN(zero_by_kernel)
  // From SG_ZERO_FROM_TILES tiles on sm_90 and later, as the runtime does it: the ticket and the statuses
  // zeroed by SG_ZERO_KERNEL, and the scan launched as its programmatic dependent (its blocks start
  // while that kernel runs and wait for its end before they read anything).
  if (blocks >= SG_ZERO_FROM_TILES) {
    int device = 0, major = 0;
    cudaError_t status = cudaGetDevice(&device);
    if (status == cudaSuccess) status = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (status != cudaSuccess) return status;
    if (major >= 9) {
      const unsigned long long words = static_cast<unsigned long long>(needed) / 8u;
      const unsigned int zero_blocks = static_cast<unsigned int>((words + 255u) / 256u > 1024u ? 1024u : (words + 255u) / 256u);
      SG_ZERO_KERNEL<<<zero_blocks, 256, 0, stream>>>(words, static_cast<unsigned long long*>(workspace));
      status = cudaGetLastError();
      if (status != cudaSuccess) return status;
      cudaLaunchAttribute dependent[1];
      dependent[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      dependent[0].val.programmaticStreamSerializationAllowed = 1;
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(static_cast<unsigned int>(blocks));
      config.blockDim = dim3(SG_BLOCK_THREADS);
      config.dynamicSmemBytes = SG_DYNAMIC_SHARED0;
      config.stream = stream;
      config.attrs = dependent;
      config.numAttrs = 1;
      return cudaLaunchKernelEx(&config, SG_KERNEL0, SG_ARGS0);
    }
  }
SG_END(zero_by_kernel)
SG_BEGIN(head_bits)
  // The ticket, the statuses and the segment starts' bits, which the heads kernel sets by OR.
  if (n > 0) {
SG_END(head_bits)
SG_BEGIN(statuses_only)
  if (blocks > 1) {  // the ticket and the statuses of its tiles (one tile reads neither)
SG_END(statuses_only)
    const cudaError_t zeroed = cudaMemsetAsync(workspace, 0, needed, stream);
    if (zeroed != cudaSuccess) return zeroed;
  }
SG_END(lookback)
SG_BEGIN(heads_then_scan)
  // The offsets as a bit per element (in the workspace), then the scan, which reads them.
  SG_KERNEL0<<<SG_GRID0, SG_BLOCK_THREADS, 0, stream>>>(SG_ARGS0);
  {
    const cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess) return launched;
  }
  SG_KERNEL1<<<SG_GRID1, SG_BLOCK_THREADS, SG_DYNAMIC_SHARED1, stream>>>(SG_ARGS1);
  return cudaGetLastError();
SG_END(heads_then_scan)
SG_BEGIN(one_kernel)
  SG_KERNEL0<<<SG_GRID0, SG_BLOCK_THREADS, SG_DYNAMIC_SHARED0, stream>>>(SG_ARGS0);
  return cudaGetLastError();
SG_END(one_kernel)
SG_BEGIN(reduce_then_scan)
  SG_T* const partials = static_cast<SG_T*>(workspace);
  SG_KERNEL0<<<SG_GRID0, SG_BLOCK_THREADS, 0, stream>>>(SG_ARGS0);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  SG_KERNEL1<<<SG_GRID1, SG_BLOCK_THREADS, 0, stream>>>(SG_ARGS1);
  status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  SG_KERNEL2<<<SG_GRID2, SG_BLOCK_THREADS, 0, stream>>>(SG_ARGS2);
  return cudaGetLastError();
SG_END(reduce_then_scan)
}
SG_BEGIN(device)

SG_END(device)
SG_END(flat)
SG_END(scan)
#endif  // __CUDACC_RTC__
