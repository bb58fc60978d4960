package network_test

import (
	"fmt"

	"github.com/mrsched/mrsched/network"
)

// Two flows share a 1 byte/s link; a third joins at t=1. From 0 to 1 a and b
// get 1/2 each; from 1 all three get 1/3, so c's single byte is done at 4;
// then a's last 0.5 byte at rate 1/2 finishes at 5, and b, alone, at 7.
func ExampleReplay() {
	caps := []float64{1} // link 0: 1 byte/s
	flows := []network.TimedFlow{
		{ID: "a", Path: []network.LinkID{0}, Bytes: 2, Start: 0},
		{ID: "b", Path: []network.LinkID{0}, Bytes: 4, Start: 0},
		{ID: "c", Path: []network.LinkID{0}, Bytes: 1, Start: 1},
	}
	results, makespan, err := network.Replay(caps, flows)
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		fmt.Printf("%s finishes at %.4g s\n", r.ID, r.Finish)
	}
	fmt.Printf("makespan %.4g s\n", makespan)
	// Output:
	// a finishes at 5 s
	// b finishes at 7 s
	// c finishes at 4 s
	// makespan 7 s
}
