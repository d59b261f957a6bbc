#ifndef WINNOW_VERSION_H
#define WINNOW_VERSION_H
#define WINNOW_VERSION "0.1.0"
#endif
