/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The worker's modules, each with a header of its own: this one names
 * them all, for bisectctl's in-process runs and for the tests that drive
 * each part.  A module of the worker includes the headers it uses.
 */
#ifndef BISECTD_WORKER_H
#define BISECTD_WORKER_H

#include "boot.h"
#include "build.h"
#include "buildjob.h"
#include "compile_helpers.h"
#include "initramfs.h"
#include "installtest.h"
#include "kconfig.h"
#include "kcache.h"
#include "package.h"
#include "pipeline.h"
#include "sandbox.h"
#include "steprun.h"

#endif
