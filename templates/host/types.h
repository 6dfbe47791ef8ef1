#ifndef SG_TYPES_GUARD
#define SG_TYPES_GUARD
SG_SCALAR_TYPES
SG_BEGIN(struct)
typedef struct SG_STRUCT {
SG_BEGIN(field)
  SG_FIELD_TYPE SG_FIELD;  // offset SG_OFFSET
SG_END(field)
} SG_STRUCT;
static_assert(sizeof(SG_STRUCT) == SG_SIZE && alignof(SG_STRUCT) == SG_ALIGN, "SG_STRUCT must have scangen's layout");
SG_END(struct)
typedef SG_T_STORAGE SG_T;
typedef SG_IN_STORAGE SG_IN;
SG_BEGIN(input_type)
typedef SG_INPUT_STORAGE SG_INPUT_T;
SG_END(input_type)
SG_BEGIN(scatter_output)
typedef SG_OUT_STORAGE SG_OUT;
SG_END(scatter_output)
#endif
