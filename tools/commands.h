/* commands.h - the subcommands of the winnow binary.
 * Each takes the arguments after its name (argv[0] is the command name) and
 * returns the exit status. */
#ifndef WINNOW_COMMANDS_H
#define WINNOW_COMMANDS_H

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} winnow_command;

int cmd_ingest(int argc, char **argv);

#endif
