# Thin wrapper: everything real is in meson and scripts/.
.PHONY: all run test bench fuzz clean

all:
	scripts/setup.sh

# The main job: probe this machine quickly and plan the default model catalog.
run:
	scripts/setup.sh
	./build/fitcheck

# Set up, fetch the small real models, run every test.
test:
	scripts/test.sh

clean:
	rm -rf build
