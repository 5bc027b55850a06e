/* keeps the support library non-empty */
typedef int wg_test_support_empty;
