// JavaScript implementation of world test:plugin/tool-plugin for componentize-js: a returned
// value is execute's ok case, a thrown one its err case.
export const tool = {
  name() {
    return "js-plugin";
  },
  execute(args) {
    if (args.startsWith("fail")) throw "error: " + args;
    return args.toUpperCase();
  },
};
